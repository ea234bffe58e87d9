/**
 * State and actions of the Rules form: load the Spiderfile into the form (following saves made in the Config tab
 * unless this form has unsaved edits), save, reset, suggest fields from the start page, preview the first rows and
 * convert the spider to a customized Scrapy project.
 */
import { useMemo, useState } from 'react';
import { App, Form } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { validateSpiderfile, type Spiderfile } from '@crawldeck/shared';
import { spiderKeys } from '../../api.ts';
import {
  convertToCustomized,
  errorText,
  extractFields,
  previewCrawl,
  saveSpiderfileForm,
  useSpiderfile,
  useSpiderfileSaved,
  type PreviewResult,
} from '../../toolsApi.ts';
import type { Spider } from '../../types.ts';
import { toRulesValues, toSpiderfile, type RulesStage, type RulesValues } from '../rulesModel.ts';
import { useFollowSpiderfile } from './useFollowSpiderfile.ts';
import { withSuggestedFields } from './suggestedFields.ts';

export function useRulesEditor(spider: Spider, goTo: (tab: string) => void) {
  const id = spider._id;
  const { t } = useTranslation(['configSpider', 'common']);
  const { message, modal } = App.useApp();
  const qc = useQueryClient();
  const sfQuery = useSpiderfile(spider);
  const saved = useSpiderfileSaved(id);
  const [form] = Form.useForm<RulesValues>();
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState<null | 'extract' | 'preview' | 'convert'>(null);
  const [preview, setPreview] = useState<PreviewResult | null>(null);
  const [previewError, setPreviewError] = useState('');
  const [changedElsewhere, setChangedElsewhere] = useState(false);
  const stages = Form.useWatch('stages', form) as RulesStage[] | undefined;
  const base = sfQuery.data?.spiderfile ?? null;
  useFollowSpiderfile(sfQuery.data, form, dirty, setChangedElsewhere);

  const stageNames = useMemo(() => (stages ?? []).map((s) => s?.name?.trim()).filter(Boolean) as string[], [stages]);

  /** The form as a Spiderfile, or null (with the form's messages shown) when it is invalid. */
  const current = async (): Promise<Spiderfile | null> => {
    if (!base) return null;
    try {
      const v = await form.validateFields();
      const sf = toSpiderfile(v, base);
      const checked = validateSpiderfile(sf);
      if (!checked.ok) {
        setError(checked.problems.map((p) => p.message).join('; '));
        return null;
      }
      return checked.spiderfile;
    } catch {
      void message.error(t('configSpider:submitErrors'));
      return null;
    }
  };

  const onSave = async () => {
    const sf = await current();
    if (!sf) return;
    setSaving(true);
    try {
      const res = await saveSpiderfileForm(id, sf);
      setError('');
      setDirty(false);
      setChangedElsewhere(false);
      saved(res);
      void message.success(t('configSpider:saved'));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setSaving(false);
    }
  };

  const onReset = () => {
    if (base) form.setFieldsValue(toRulesValues(base));
    setDirty(false);
    setChangedElsewhere(false);
    setError('');
  };

  const onExtract = async () => {
    const url = (form.getFieldValue('start_url') as string | undefined)?.trim();
    setBusy('extract');
    try {
      const found = await extractFields(id, url || undefined);
      const all = (form.getFieldValue('stages') as RulesStage[]) ?? [];
      const startName = form.getFieldValue('start_stage') as string | undefined;
      form.setFieldValue('stages', withSuggestedFields(all, startName, found));
      setDirty(true);
      void message.success(
        t('configSpider:extracted', { count: found.count, selector: found.list_css, fields: found.fields.length }),
      );
    } catch (err) {
      modal.error({ title: t('configSpider:extractFailed'), content: errorText(err) });
    } finally {
      setBusy(null);
    }
  };

  const onPreview = async () => {
    const sf = await current();
    if (!sf) return;
    setBusy('preview');
    setPreviewError('');
    try {
      setPreview(await previewCrawl(id, sf, 10));
    } catch (err) {
      setPreview(null);
      setPreviewError(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  const onConvert = () =>
    modal.confirm({
      title: t('configSpider:convertTitle'),
      content: t('configSpider:convertText'),
      okText: t('configSpider:convert'),
      cancelText: t('common:cancel'),
      onOk: async () => {
        setBusy('convert');
        try {
          if (dirty) {
            const sf = await current();
            if (!sf) return;
            saved(await saveSpiderfileForm(id, sf));
            setDirty(false);
          }
          const res = await convertToCustomized(id);
          const { files: _files, ...spiderData } = res;
          qc.setQueryData(spiderKeys.detail(id), spiderData);
          void qc.invalidateQueries({ queryKey: spiderKeys.files(id) });
          void qc.invalidateQueries({ queryKey: ['spiders', 'list'] });
          void message.success(t('configSpider:converted', { count: res.files?.length ?? 0 }));
          goTo('overview');
        } catch (err) {
          // the dialog's title says the conversion failed; the server's reason follows without repeating it
          const reason = errorText(err).replace(/^Converted unsuccessfully:?\s*/i, '');
          modal.error({ title: t('configSpider:convertFailed'), content: reason, className: 'convert-failed' });
        } finally {
          setBusy(null);
        }
      },
    });

  return {
    form,
    sfQuery,
    base,
    stages,
    stageNames,
    dirty,
    setDirty,
    saving,
    error,
    busy,
    preview,
    previewError,
    changedElsewhere,
    onSave,
    onReset,
    onExtract,
    onPreview,
    onConvert,
  };
}
