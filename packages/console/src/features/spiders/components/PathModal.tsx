/** Small dialog asking for a file or folder name / path (create, rename). */
import { useEffect, useState } from 'react';
import { Form, Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

interface Props {
  open: boolean;
  title: string;
  label: string;
  /** Shown above the input, e.g. the parent folder. */
  hint?: string;
  initial?: string;
  onCancel: () => void;
  onSubmit: (value: string) => Promise<void>;
}

/** A relative path: no empty, '.' or '..' segments, no leading slash, no backslash or NUL. */
export function isSafeRelativePath(p: string): boolean {
  if (!p || p.startsWith('/') || /[\\\0]/.test(p)) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

export default function PathModal({ open, title, label, hint, initial = '', onCancel, onSubmit }: Props) {
  const { t } = useTranslation(['spiders', 'common']);
  const [form] = Form.useForm<{ value: string }>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (open) {
      form.setFieldsValue({ value: initial });
      setBusy(false);
    }
  }, [open, initial, form]);

  const submit = async () => {
    const { value } = await form.validateFields();
    setBusy(true);
    try {
      await onSubmit(value.trim());
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={title}
      okText={t('common:ok')}
      cancelText={t('common:cancel')}
      confirmLoading={busy}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onCancel}
      destroyOnHidden
      width={460}
      className="path-modal"
    >
      {hint && <Typography.Paragraph type="secondary">{hint}</Typography.Paragraph>}
      <Form form={form} layout="vertical" onFinish={() => void submit().catch(() => undefined)}>
        <Form.Item
          name="value"
          label={label}
          rules={[
            { required: true, whitespace: true, message: t('spiders:files.nameRequired') },
            {
              validator: async (_, v: string) => {
                if (v && !isSafeRelativePath(v.trim())) throw new Error(t('spiders:files.nameInvalid'));
              },
            },
          ]}
        >
          <Input autoFocus className="mono-input" data-testid="path-input" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
