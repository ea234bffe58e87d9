/**
 * Git panel of the spider detail (repository URL, branch, username and password; Sync and Reset): the repository
 * settings (password write-only), Sync and Reset (with a confirmation that console edits are discarded) and the
 * result — last commit (hash, message, author, date) and last sync time. Without a repository it is a
 * "connect a repository" form. Errors show the server's message (git's `fatal:` line).
 */
import { useEffect, useMemo, useState } from 'react';
import { Alert, App, Card, Form, Space, Tag, Typography } from 'antd';
import { BranchesOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { spiderKeys, useUpdateSpider } from '../api.ts';
import { errorText, gitAction, toolKeys, useGitInfo } from '../toolsApi.ts';
import type { Spider, SpiderForm } from '../types.ts';
import GitSyncChanges from './GitSyncChanges.tsx';
import { GitActions, GitFields, type GitValues as Values } from './GitFields.tsx';
import GitResult, { type GitLastAction } from './GitResult.tsx';
import './tools.css';

export default function GitPanel({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('git');
  const { modal, message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const update = useUpdateSpider(id);
  const info = useGitInfo(spider);
  const [busy, setBusy] = useState<null | 'save' | 'sync' | 'reset'>(null);
  const [error, setError] = useState('');
  const [last, setLast] = useState<GitLastAction | null>(null);
  const connected = !!spider.git_url;

  const initial = useMemo<Values>(
    () => ({
      git_url: spider.git_url,
      git_branch: spider.git_branch,
      git_username: spider.git_username,
      git_password: '',
      git_auto_sync: spider.git_auto_sync,
    }),
    [spider.git_url, spider.git_branch, spider.git_username, spider.git_auto_sync],
  );
  useEffect(() => {
    form.setFieldsValue(initial);
  }, [form, initial]);

  const changed = (v: Values) =>
    v.git_url.trim() !== spider.git_url ||
    (v.git_branch ?? '').trim() !== spider.git_branch ||
    (v.git_username ?? '').trim() !== spider.git_username ||
    !!v.git_auto_sync !== spider.git_auto_sync ||
    !!v.git_password;

  /** Saves the form when it differs from the spider; false when it is invalid or the save failed. */
  const saveIfChanged = async (force = false): Promise<boolean> => {
    let v: Values;
    try {
      v = await form.validateFields();
    } catch {
      return false;
    }
    if (!force && !changed(v)) return true;
    const body: SpiderForm = {
      git_url: v.git_url.trim(),
      git_branch: (v.git_branch ?? '').trim(),
      git_username: (v.git_username ?? '').trim(),
      git_auto_sync: !!v.git_auto_sync,
    };
    if (v.git_password) body.git_password = v.git_password;
    try {
      await update.mutateAsync(body);
      form.setFieldValue('git_password', '');
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    }
  };

  const onSave = async () => {
    setBusy('save');
    try {
      if (await saveIfChanged(true)) void message.success(t('saved'));
    } finally {
      setBusy(null);
    }
  };

  const run = async (action: 'sync' | 'reset') => {
    setBusy(action);
    try {
      if (!(await saveIfChanged())) return;
      const res = await gitAction(id, action);
      setError('');
      setLast({ ...res, action });
      void message.success(action === 'sync' ? t('synced', { count: res.files }) : t('resetDone'));
      // the files changed; a sync may have made it a Scrapy project or set the branch
      void qc.invalidateQueries({ queryKey: spiderKeys.files(id) });
      void qc.invalidateQueries({ queryKey: ['spiders', 'scrapy', id] });
      void qc.invalidateQueries({ queryKey: spiderKeys.detail(id), exact: true });
    } catch (err) {
      setError(errorText(err));
    } finally {
      void qc.invalidateQueries({ queryKey: toolKeys.git(id) });
      setBusy(null);
    }
  };

  const confirmReset = () =>
    modal.confirm({
      title: t('resetTitle'),
      content: t('resetText'),
      okText: t('reset'),
      okButtonProps: { danger: true, 'data-testid': 'git-reset-confirm' },
      cancelText: t('cancel'),
      onOk: () => run('reset'),
    });

  const g = info.data;
  const branches = last?.branches ?? g?.branches ?? [];
  const storedError = !error && g?.last_error ? g.last_error : '';

  return (
    <Card
      size="small"
      className="git-panel tool-panel"
      data-testid="git-panel"
      title={
        <Space>
          <BranchesOutlined />
          <span>{connected ? t('title') : t('connectTitle')}</span>
          {connected && g?.auto_sync && <Tag color="blue">{t('autoSyncOn')}</Tag>}
        </Space>
      }
    >
      {!connected && (
        <Typography.Paragraph type="secondary" className="tool-panel-hint">
          {t('connectHint')}
        </Typography.Paragraph>
      )}
      <Form<Values> form={form} layout="vertical" initialValues={initial} className="git-form">
        <GitFields branches={branches} passwordSet={spider.git_password_set} />
        <GitActions
          connected={connected}
          busy={busy}
          onSave={() => void onSave()}
          onReset={confirmReset}
          onSync={() => void run('sync')}
        />
      </Form>

      {(error || storedError) && (
        <Alert
          type="error"
          showIcon
          className="git-error"
          message={error ? t('failed') : t('lastFailed')}
          description={<span className="mono-text git-error-text">{error || storedError}</span>}
          data-testid="git-error"
        />
      )}

      {connected && <GitResult info={g} last={last} />}
      {connected && last?.changes && <GitSyncChanges spiderId={spider._id} changes={last.changes} />}
    </Card>
  );
}
