/**
 * Spider detail, Config tab: the Spiderfile of a configurable spider as YAML text in
 * CodeMirror, checked as you type with the shared validator (problems with their line), saved through
 * `POST /config_spiders/{id}/spiderfile` (the server validates again and keeps the text as written). The Rules
 * tab edits the same query, so a save here shows there and the other way round.
 */
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { Alert, App, Button, Skeleton, Space, Spin, Tag, Typography } from 'antd';
import { CheckCircleOutlined, SaveOutlined, UndoOutlined, WarningOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { dumpSpiderfile, parseSpiderfile, type SpiderfileProblem } from '@crawldeck/shared';
import { errorText, saveSpiderfileText, useSpiderfile, useSpiderfileSaved } from '../toolsApi.ts';
import { NotConfigurable } from './RulesTab.tsx';
import type { SpiderTabProps } from './types.ts';
import '../components/tools.css';

const CodeEditor = lazy(() => import('../components/CodeEditor.tsx'));

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setV(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return v;
}

export default function ConfigTab({ spider }: SpiderTabProps) {
  const id = spider._id;
  const { t } = useTranslation(['configSpider', 'common']);
  const { message } = App.useApp();
  const sfQuery = useSpiderfile(spider);
  const saved = useSpiderfileSaved(id);
  const stored = useMemo(() => {
    const d = sfQuery.data;
    if (!d) return null;
    return d.content || (d.spiderfile ? dumpSpiderfile(d.spiderfile) : '');
  }, [sfQuery.data]);
  const [draft, setDraft] = useState<string | null>(null);
  const [original, setOriginal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [serverError, setServerError] = useState('');
  const dirty = draft !== null && original !== null && draft !== original;
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;
  const [changedElsewhere, setChangedElsewhere] = useState(false);

  // Follow saves of the Rules tab (same query) unless the text has unsaved edits.
  useEffect(() => {
    if (stored === null) return;
    if (dirtyRef.current) {
      if (stored !== original) setChangedElsewhere(true);
      return;
    }
    setDraft(stored);
    setOriginal(stored);
    setChangedElsewhere(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stored]);

  const checked = useDebounced(draft, 300);
  const problems: SpiderfileProblem[] = useMemo(() => {
    if (checked === null) return [];
    const r = parseSpiderfile(checked);
    return r.ok ? [] : r.problems;
  }, [checked]);

  const draftRef = useRef(draft);
  draftRef.current = draft;
  const save = async () => {
    const text = draftRef.current;
    if (text === null) return;
    const local = parseSpiderfile(text);
    if (!local.ok) {
      setServerError('');
      void message.error(t('configSpider:fixProblems'));
      return;
    }
    setSaving(true);
    try {
      const res = await saveSpiderfileText(id, text);
      setServerError('');
      setOriginal(res.content);
      setDraft(res.content);
      setChangedElsewhere(false);
      saved(res);
      void message.success(t('configSpider:saved'));
    } catch (err) {
      setServerError(errorText(err));
    } finally {
      setSaving(false);
    }
  };

  if (spider.type !== 'configurable') return <NotConfigurable tab="config" />;
  if (sfQuery.isLoading || draft === null) return <Skeleton active paragraph={{ rows: 10 }} />;

  return (
    <div className="config-tab" data-testid="config-tab">
      <div className="config-toolbar">
        <Space>
          <Typography.Text className="mono-text" strong>
            Spiderfile
          </Typography.Text>
          <Tag>YAML</Tag>
          {problems.length ? (
            <Tag color="error" icon={<WarningOutlined />} data-testid="config-invalid">
              {t('configSpider:problemCount', { count: problems.length })}
            </Tag>
          ) : (
            <Tag color="success" icon={<CheckCircleOutlined />} data-testid="config-valid">
              {t('configSpider:valid')}
            </Tag>
          )}
          {dirty && <Typography.Text type="warning">{t('configSpider:unsaved')}</Typography.Text>}
        </Space>
        <Space>
          <Button
            icon={<UndoOutlined />}
            disabled={!dirty}
            onClick={() => {
              setDraft(stored);
              setOriginal(stored);
              setServerError('');
              setChangedElsewhere(false);
            }}
          >
            {t('configSpider:reset')}
          </Button>
          <Button
            type="primary"
            icon={<SaveOutlined />}
            loading={saving}
            onClick={() => void save()}
            data-tour="config-yaml-save"
            data-testid="config-save"
          >
            {t('common:save')}
          </Button>
        </Space>
      </div>
      {changedElsewhere && <Alert type="warning" showIcon message={t('configSpider:changedElsewhereText')} />}
      {problems.length > 0 && (
        <Alert
          type="error"
          showIcon
          message={t('configSpider:problemsTitle')}
          description={
            <ul className="config-problems" data-testid="config-problems">
              {problems.map((p, i) => (
                <li key={i}>
                  {p.line ? (
                    <span className="config-problem-line">{t('configSpider:line', { line: p.line })}</span>
                  ) : null}
                  {p.message}
                </li>
              ))}
            </ul>
          }
        />
      )}
      {serverError && (
        <Alert
          type="error"
          showIcon
          message={t('configSpider:saveFailed')}
          description={serverError}
          data-testid="config-error"
        />
      )}
      <div className="config-editor" data-tour="config-yaml" data-testid="config-editor">
        <Suspense fallback={<Spin className="spider-tab-loading" />}>
          <CodeEditor filename="Spiderfile.yaml" value={draft} onChange={setDraft} onSave={() => void save()} />
        </Suspense>
      </div>
      <Typography.Text type="secondary" className="config-hint">
        {t('configSpider:configHint')}
      </Typography.Text>
    </div>
  );
}
