/**
 * What every section of the Scrapy project panel shares: each section keeps its own error, shown in the section and
 * cleared by its next success, and a failed save leaves the edited form as it is (the failed result is not applied).
 */
import { useEffect, useState, type ReactNode } from 'react';
import { Alert, App, Button, Space, Tooltip } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { spiderKeys } from '../../api.ts';
import { errorText, saveScrapySection, toolKeys, type ScrapySection } from '../../toolsApi.ts';

/** A Python identifier: item classes, fields, setting keys and spider names. */
export const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

let rowUidSeq = 0;
/** A key for a table row being edited, unique within the page. */
export const nextRowUid = (): number => ++rowUidSeq;

/** A section's error: the query's error until its next success, or the last failed save's. */
export function useSectionError(query: { error: Error | null; dataUpdatedAt: number; isError: boolean }) {
  const [error, setError] = useState('');
  useEffect(() => {
    if (query.isError && query.error) setError(errorText(query.error));
  }, [query.isError, query.error]);
  useEffect(() => {
    if (query.dataUpdatedAt) setError('');
  }, [query.dataUpdatedAt]);
  return [error, setError] as const;
}

/**
 * Saving an editable section (settings, items, pipelines): on success the answer becomes the section's data, the
 * error is cleared and the files (and `alsoRefresh` sections) reload; on failure the error is kept and the draft
 * stays as edited (the failed result is not applied).
 */
export function useSectionSave(
  id: string,
  section: Exclude<ScrapySection, 'spiders'>,
  setError: (e: string) => void,
  successText: string,
  alsoRefresh: ScrapySection[] = [],
) {
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [saving, setSaving] = useState(false);
  const persist = async (body: unknown) => {
    setSaving(true);
    try {
      const saved = await saveScrapySection(id, section, body);
      setError('');
      qc.setQueryData(toolKeys.scrapy(id, section), saved);
      for (const other of alsoRefresh) void qc.invalidateQueries({ queryKey: toolKeys.scrapy(id, other) });
      void qc.invalidateQueries({ queryKey: spiderKeys.files(id) });
      void message.success(successText);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setSaving(false);
    }
  };
  return { saving, persist };
}

export function SectionError({ section, error }: { section: ScrapySection; error: string }) {
  const { t } = useTranslation('scrapy');
  if (!error) return null;
  return (
    <Alert
      type="error"
      showIcon
      className="scrapy-section-error"
      message={t(`errors.${section}`)}
      description={<span className="mono-text scrapy-error-text">{error}</span>}
      data-testid={`scrapy-error-${section}`}
    />
  );
}

export function SectionToolbar({
  children,
  onReload,
  loading,
}: {
  children?: ReactNode;
  onReload: () => void;
  loading: boolean;
}) {
  const { t } = useTranslation('scrapy');
  return (
    <div className="scrapy-toolbar">
      <Space wrap>{children}</Space>
      <Tooltip title={t('reload')}>
        <Button icon={<ReloadOutlined />} onClick={onReload} loading={loading} aria-label={t('reload')} />
      </Tooltip>
    </div>
  );
}
