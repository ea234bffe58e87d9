/**
 * Git panel of the spider detail (repository URL, branch, username and password; Sync and Reset): the repository
 * settings (password write-only), Sync and Reset (with a confirmation that console edits are discarded) and the
 * result — last commit (hash, message, author, date) and last sync time. Without a repository it is a
 * "connect a repository" form. Errors show the server's message (git's `fatal:` line).
 */
import { useEffect, useMemo, useState } from 'react';
import {
  Alert,
  App,
  AutoComplete,
  Button,
  Card,
  Col,
  Descriptions,
  Form,
  Input,
  Row,
  Space,
  Switch,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { BranchesOutlined, CloudSyncOutlined, LinkOutlined, RollbackOutlined, SaveOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { gitUrlProblem, gitBranchProblem, type GitSyncResult } from '@crawldeck/shared';
import { spiderKeys, useUpdateSpider } from '../api.ts';
import { errorText, gitAction, toolKeys, useGitInfo } from '../toolsApi.ts';
import type { Spider, SpiderForm } from '../types.ts';
import GitSyncChanges from './GitSyncChanges.tsx';
import './tools.css';

interface Values {
  git_url: string;
  git_branch: string;
  git_username: string;
  git_password: string;
  git_auto_sync: boolean;
}

const fmt = (v: string | null | undefined) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '-');

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
  const [last, setLast] = useState<(GitSyncResult & { action: 'sync' | 'reset' }) | null>(null);
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
  const commit = last?.commit ?? g?.commit ?? null;
  const branches = last?.branches ?? g?.branches ?? [];
  const lastSync = last?.sync_ts ?? g?.last_sync_ts ?? null;
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
        <Row gutter={16}>
          <Col xs={24} md={14}>
            <Form.Item
              name="git_url"
              label={t('url')}
              rules={[
                { required: true, whitespace: true, message: t('urlRequired') },
                {
                  validator: (_, v: string) => {
                    const p = v?.trim() ? gitUrlProblem(v) : null;
                    return p ? Promise.reject(new Error(p)) : Promise.resolve();
                  },
                },
              ]}
            >
              <Input
                className="mono-input"
                prefix={<LinkOutlined />}
                placeholder="https://github.com/owner/repo.git"
                data-testid="git-url"
              />
            </Form.Item>
          </Col>
          <Col xs={24} md={10}>
            <Form.Item
              name="git_branch"
              label={t('branch')}
              tooltip={t('branchHint')}
              rules={[
                {
                  validator: (_, v: string) => {
                    const p = v?.trim() ? gitBranchProblem(v.trim()) : null;
                    return p ? Promise.reject(new Error(p)) : Promise.resolve();
                  },
                },
              ]}
            >
              <AutoComplete
                className="mono-input"
                options={branches.map((b) => ({ value: b, label: b }))}
                placeholder={t('branchDefault')}
                allowClear
                data-testid="git-branch"
              />
            </Form.Item>
          </Col>
          <Col xs={24} md={8}>
            <Form.Item name="git_username" label={t('username')} rules={[{ max: 255 }]}>
              <Input autoComplete="off" data-testid="git-username" />
            </Form.Item>
          </Col>
          <Col xs={24} md={8}>
            <Form.Item
              name="git_password"
              label={t('password')}
              extra={spider.git_password_set ? t('passwordSet') : t('passwordHint')}
              rules={[{ max: 1000 }]}
            >
              <Input.Password
                autoComplete="new-password"
                placeholder={spider.git_password_set ? '••••••' : ''}
                data-testid="git-password"
              />
            </Form.Item>
          </Col>
          <Col xs={24} md={8}>
            <Form.Item name="git_auto_sync" label={t('autoSync')} tooltip={t('autoSyncHint')} valuePropName="checked">
              <Switch data-testid="git-auto-sync" />
            </Form.Item>
          </Col>
        </Row>
        <div className="git-actions">
          {connected && (
            <Button
              icon={<SaveOutlined />}
              onClick={() => void onSave()}
              loading={busy === 'save'}
              disabled={!!busy && busy !== 'save'}
              data-testid="git-save"
            >
              {t('save')}
            </Button>
          )}
          {connected && (
            <Tooltip title={t('resetHint')}>
              <Button
                danger
                icon={<RollbackOutlined />}
                onClick={confirmReset}
                loading={busy === 'reset'}
                disabled={!!busy && busy !== 'reset'}
                data-testid="git-reset"
              >
                {t('reset')}
              </Button>
            </Tooltip>
          )}
          <Button
            type="primary"
            icon={<CloudSyncOutlined />}
            onClick={() => void run('sync')}
            loading={busy === 'sync'}
            disabled={!!busy && busy !== 'sync'}
            data-testid="git-sync"
          >
            {connected ? t('sync') : t('connect')}
          </Button>
        </div>
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

      {connected && (
        <Descriptions size="small" bordered column={{ xs: 1, md: 2 }} className="git-result" data-testid="git-result">
          <Descriptions.Item label={t('commit')}>
            {commit ? (
              <Tooltip title={commit.hash}>
                <Typography.Text className="mono-text" copyable={{ text: commit.hash }} data-testid="git-commit-hash">
                  {commit.hash.slice(0, 10)}
                </Typography.Text>
              </Tooltip>
            ) : (
              <Typography.Text type="secondary">{t('neverSynced')}</Typography.Text>
            )}
          </Descriptions.Item>
          <Descriptions.Item label={t('currentBranch')}>
            <span className="mono-text">{last?.branch ?? g?.branch ?? '-'}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('message')} span={2}>
            <span data-testid="git-commit-message">{commit?.message ?? '-'}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('author')}>{commit?.author ?? '-'}</Descriptions.Item>
          <Descriptions.Item label={t('date')}>{fmt(commit?.date)}</Descriptions.Item>
          <Descriptions.Item label={t('lastSync')}>
            <span data-testid="git-last-sync">{fmt(lastSync)}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('lastResult')}>
            {last ? t(last.action === 'sync' ? 'resultSync' : 'resultReset', { count: last.files }) : '-'}
          </Descriptions.Item>
        </Descriptions>
      )}
      {connected && last?.changes && <GitSyncChanges spiderId={spider._id} changes={last.changes} />}
    </Card>
  );
}
