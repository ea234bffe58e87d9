/** Package indexes (administrators): pip index and extra index, npm registry; mirrors and private indexes. */
import { useEffect } from 'react';
import { App, Button, Card, Form, Input, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { EnvSettings } from '@crawldeck/shared';
import { useEnvSettings, useSaveEnvSettings } from '../../environments/api.ts';

const URL_RULE = { pattern: /^(|https?:\/\/\S+)$/, message: 'http(s)://…' };

export default function EnvSettingsCard() {
  const { t } = useTranslation('environments');
  const { message } = App.useApp();
  const settings = useEnvSettings(true);
  const save = useSaveEnvSettings();
  const [form] = Form.useForm<EnvSettings>();
  useEffect(() => {
    if (settings.data) form.setFieldsValue(settings.data);
  }, [settings.data, form]);
  const submit = (v: EnvSettings) =>
    save.mutate(
      {
        pip_index_url: v.pip_index_url ?? '',
        pip_extra_index_url: v.pip_extra_index_url ?? '',
        npm_registry: v.npm_registry ?? '',
      },
      { onSuccess: () => void message.success(t('settings.saved')) },
    );
  return (
    <Card size="small" title={t('settings.title')} style={{ marginBottom: 12 }} data-testid="env-settings">
      <Typography.Paragraph type="secondary">{t('settings.hint')}</Typography.Paragraph>
      <Form form={form} layout="vertical" onFinish={submit} style={{ maxWidth: 640 }}>
        <Form.Item name="pip_index_url" label={t('settings.pipIndex')} rules={[URL_RULE]}>
          <Input placeholder="https://pypi.org/simple" />
        </Form.Item>
        <Form.Item name="pip_extra_index_url" label={t('settings.pipExtra')} rules={[URL_RULE]}>
          <Input />
        </Form.Item>
        <Form.Item name="npm_registry" label={t('settings.npmRegistry')} rules={[URL_RULE]}>
          <Input placeholder="https://registry.npmjs.org" />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          {t('settings.save')}
        </Button>
      </Form>
    </Card>
  );
}
