/** Install a pip or npm package by name and optional version, on this node or on all nodes; look it up first. */
import { useState } from 'react';
import { Button, Checkbox, Form, Input, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { EnvJobBody } from '@crawldeck/shared';
import { searchPackages } from '../../environments/api.ts';

interface Props {
  target: 'pip' | 'npm';
  nodeId: string;
  start(body: EnvJobBody): void;
}

export default function PackageInstallForm({ target, nodeId, start }: Props) {
  const { t } = useTranslation('environments');
  const [form] = Form.useForm<{ name: string; version?: string; all?: boolean }>();
  const [found, setFound] = useState<string | null>(null);
  const lookUp = async () => {
    const name = (form.getFieldValue('name') as string | undefined)?.trim();
    if (!name) return;
    const hits = await searchPackages(target, name);
    setFound(hits.length ? t('form.found', { versions: hits[0].versions.slice(-10).join(', ') }) : t('form.notFound'));
  };
  const submit = (v: { name: string; version?: string; all?: boolean }) => {
    start({
      target,
      action: 'install',
      name: v.name.trim(),
      ...(v.version ? { version: v.version.trim() } : {}),
      ...(v.all ? { all_nodes: true } : { node_ids: [nodeId] }),
    });
    form.resetFields();
    setFound(null);
  };
  return (
    <Form form={form} layout="inline" onFinish={submit} data-testid={`env-${target}-form`} style={{ marginBottom: 8 }}>
      <Form.Item name="name" rules={[{ required: true, message: t('form.nameRequired') }]}>
        <Input placeholder={t('form.name')} data-testid={`env-${target}-name`} style={{ width: 220 }} />
      </Form.Item>
      <Form.Item name="version">
        <Input placeholder={t('form.version')} data-testid={`env-${target}-version`} style={{ width: 150 }} />
      </Form.Item>
      <Form.Item name="all" valuePropName="checked">
        <Checkbox>{t('form.allNodes')}</Checkbox>
      </Form.Item>
      <Space>
        <Button onClick={() => void lookUp()}>{t('actions.search')}</Button>
        <Button type="primary" htmlType="submit" data-testid={`env-${target}-install`}>
          {t('actions.install')}
        </Button>
      </Space>
      {found && (
        <Typography.Text type="secondary" style={{ marginLeft: 12 }}>
          {found}
        </Typography.Text>
      )}
    </Form>
  );
}
