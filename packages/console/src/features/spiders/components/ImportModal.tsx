/**
 * Import a spider from a public code-hosting URL (a URL and a source type, GitHub by default; POST
 * /spiders/import/github). Any Git host works (the type only labels the source); the URL is checked with the
 * server's allow-list rule, the clone's progress is shown, the server's error is shown in the dialog, and the
 * new spider opens on success (a repository of several Scrapy projects gives one spider each: the list opens).
 */
import { useEffect, useState } from 'react';
import { Alert, App, Form, Input, Modal, Progress, Select, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { gitBranchProblem, gitUrlProblem } from '@crawldeck/shared';
import { ApiRequestError } from '../../../api/request.ts';
import { useImportRepo } from '../toolsApi.ts';

interface Props {
  open: boolean;
  onClose: () => void;
}

interface Values {
  url: string;
  type: string;
  branch?: string;
}

const SOURCES = [
  { value: 'github', label: 'GitHub' },
  { value: 'gitlab', label: 'GitLab' },
  { value: 'gitee', label: 'Gitee' },
  { value: 'git', label: 'Git' },
];

export default function ImportModal({ open, onClose }: Props) {
  const { t } = useTranslation(['spiders', 'git', 'common']);
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const imp = useImportRepo();
  const [error, setError] = useState<string | null>(null);
  const [elapsed, setElapsed] = useState(0);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue({ type: 'github' });
    setError(null);
  }, [open, form]);

  // progress while the master clones: elapsed seconds on an indeterminate bar
  useEffect(() => {
    if (!imp.isPending) return;
    setElapsed(0);
    const started = Date.now();
    const timer = setInterval(() => setElapsed(Math.floor((Date.now() - started) / 1000)), 500);
    return () => clearInterval(timer);
  }, [imp.isPending]);

  const onOk = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      void message.error(t('spiders:submitErrors'));
      return;
    }
    setError(null);
    try {
      const spider = await imp.mutateAsync({
        url: values.url.trim(),
        type: values.type,
        ...(values.branch?.trim() ? { branch: values.branch.trim() } : {}),
      });
      onClose();
      if (spider.projects.length > 1) {
        // One spider per Scrapy project of the repository: the list shows them all.
        const names = spider.projects.map((p) => `${p.name} → ${p.src}`).join(', ');
        void message.success(t('spiders:import.doneProjects', { count: spider.projects.length, names }), 8);
        navigate('/spiders');
        return;
      }
      void message.success(t('spiders:import.done'));
      navigate(`/spiders/${spider._id}`);
    } catch (err) {
      const text =
        err instanceof ApiRequestError ? `${err.status ? `${err.status}: ` : ''}${err.errorText}` : String(err);
      setError(text || t('common:fetchError'));
    }
  };

  return (
    <Modal
      open={open}
      title={t('spiders:import.title')}
      okText={t('spiders:import.submit')}
      cancelText={t('common:cancel')}
      onOk={() => void onOk()}
      confirmLoading={imp.isPending}
      onCancel={() => !imp.isPending && onClose()}
      maskClosable={!imp.isPending}
      destroyOnHidden
      className="spider-import-modal"
    >
      <Form form={form} layout="vertical" preserve={false} disabled={imp.isPending}>
        <Form.Item name="type" label={t('spiders:import.type')} rules={[{ required: true }]}>
          <Select options={SOURCES} data-testid="import-type" />
        </Form.Item>
        <Form.Item
          name="url"
          label={t('spiders:import.url')}
          extra={t('git:importUrlHint')}
          rules={[
            { required: true, whitespace: true, message: t('spiders:rules.urlRequired') },
            {
              validator: (_, v: string) => {
                const p = v?.trim() ? gitUrlProblem(v) : null;
                return p ? Promise.reject(new Error(p)) : Promise.resolve();
              },
            },
          ]}
        >
          <Input placeholder="https://github.com/owner/repo" className="mono-input" data-testid="import-url" />
        </Form.Item>
        <Form.Item
          name="branch"
          label={t('git:branch')}
          rules={[
            {
              validator: (_, v: string) => {
                const p = v?.trim() ? gitBranchProblem(v.trim()) : null;
                return p ? Promise.reject(new Error(p)) : Promise.resolve();
              },
            },
          ]}
        >
          <Input placeholder={t('git:branchDefault')} className="mono-input" data-testid="import-branch" />
        </Form.Item>
        {imp.isPending && (
          <div className="import-progress" data-testid="import-progress">
            <Progress percent={100} status="active" showInfo={false} size="small" />
            <Typography.Text type="secondary">{t('git:importing', { seconds: elapsed })}</Typography.Text>
          </div>
        )}
        {error && (
          <Alert
            type="error"
            showIcon
            message={t('spiders:import.failed')}
            description={<span className="mono-text">{error}</span>}
            data-testid="import-error"
          />
        )}
      </Form>
    </Modal>
  );
}
