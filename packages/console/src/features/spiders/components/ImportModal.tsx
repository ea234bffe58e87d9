/** Import a spider from a public code-hosting URL (spec §3 "Import form": url, type default github). */
import { useEffect, useState } from 'react';
import { Alert, App, Form, Input, Modal, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiRequestError } from '../../../api/request.ts';
import { useImportSpider } from '../api.ts';

interface Props {
  open: boolean;
  onClose: () => void;
}

export default function ImportModal({ open, onClose }: Props) {
  const { t } = useTranslation(['spiders', 'common']);
  const { message } = App.useApp();
  const [form] = Form.useForm<{ url: string; type: string }>();
  const imp = useImportSpider();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue({ type: 'github' });
    setError(null);
  }, [open, form]);

  const onOk = async () => {
    let values: { url: string; type: string };
    try {
      values = await form.validateFields();
    } catch {
      void message.error(t('spiders:submitErrors'));
      return;
    }
    setError(null);
    try {
      await imp.mutateAsync({ url: values.url.trim(), type: values.type });
      void message.success(t('spiders:import.done'));
      onClose();
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
      onCancel={onClose}
      destroyOnHidden
      className="spider-import-modal"
    >
      <Form form={form} layout="vertical" preserve={false}>
        <Form.Item name="type" label={t('spiders:import.type')} rules={[{ required: true }]}>
          <Select options={[{ value: 'github', label: 'GitHub' }]} data-testid="import-type" />
        </Form.Item>
        <Form.Item
          name="url"
          label={t('spiders:import.url')}
          rules={[
            { required: true, whitespace: true, message: t('spiders:rules.urlRequired') },
            { pattern: /^https?:\/\/\S+$/, message: t('spiders:rules.urlPattern') },
          ]}
        >
          <Input placeholder="https://github.com/owner/repo" data-testid="import-url" />
        </Form.Item>
        {error && (
          <Alert
            type="error"
            showIcon
            message={t('spiders:import.failed')}
            description={error}
            data-testid="import-error"
          />
        )}
      </Form>
    </Modal>
  );
}
