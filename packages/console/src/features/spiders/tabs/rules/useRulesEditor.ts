/**
 * State and actions of the Rules form: load the Spiderfile into the form (following saves made in the Config tab
 * unless this form has unsaved edits), save, reset, suggest fields from the start page, preview the first rows and
 * convert the spider to a customized Scrapy project.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
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
import {
  emptyStage,
  toRulesValues,
  toSpiderfile,
  type RulesField,
  type RulesStage,
  type RulesValues,
} from '../rulesModel.ts';

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
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  // The same query feeds the Config tab: follow its saves unless this form has unsaved edits.
  const contentKey = sfQuery.data ? sfQuery.data.content || JSON.stringify(sfQuery.data.spiderfile) : '';
  useEffect(() => {
    if (!base) return;
    if (dirtyRef.current) {
      setChangedElsewhere(true);
      return;
    }
    form.setFieldsValue(toRulesValues(base));
    setChangedElsewhere(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [contentKey]);

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
      let idx = all.findIndex((s) => s.name === startName);
      if (idx < 0) idx = 0;
      const target = all[idx] ?? emptyStage('list', true);
      // keep fields that lead to another stage (detail links); the suggestion replaces the rest
      const follow = target.fields.filter((f) => f.next_stage);
      const fields: RulesField[] = [
        ...found.fields.map((f) => ({
          name: f.name,
          sel: (f.xpath ? 'xpath' : 'css') as RulesField['sel'],
          selector: f.xpath || f.css,
          attr: f.attr,
          remark: f.remark,
        })),
        ...follow.filter((f) => !found.fields.some((x) => x.name === f.name)),
      ];
      const next: RulesStage = {
        ...target,
        is_list: true,
        list_sel: 'css',
        list_selector: found.list_css,
        ...(found.page_css ? { page_sel: 'css' as const, page_selector: found.page_css } : {}),
        fields,
      };
      const copy = [...all];
      copy[idx] = next;
      form.setFieldValue('stages', copy);
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
