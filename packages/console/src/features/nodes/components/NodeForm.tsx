/** Node edit form: name, description, enabled, max concurrent tasks (POST /nodes/{id}, admins). */
import { useEffect } from 'react';
import { App, Button, Form, Input, InputNumber, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import type { NodeEditBody, NodeListItem } from '@crawldeck/shared';
import { useUpdateNode } from '../api.ts';
import { showSubmitBlocked } from '../../../app/submitBlocked.ts';

export function useNodeForm(node: NodeListItem | null | undefined) {
  const [form] = Form.useForm<NodeEditBody>();
  // Filled again only when the stored values change: the node's live refresh (heartbeat, running tasks) must not
  // overwrite what the user is typing.
  const { name, description, enabled, max_runners } = node ?? {};
  useEffect(() => {
    if (name !== undefined) form.setFieldsValue({ name, description, enabled, max_runners });
  }, [name, description, enabled, max_runners, form]);
  return form;
}

export function NodeFormFields({ readOnly }: { readOnly?: boolean }) {
  const { t } = useTranslation('nodes');
  return (
    <>
      <Form.Item
        name="name"
        label={t('fields.name')}
        rules={[{ required: true, whitespace: true, message: t('nameRequired') }]}
      >
        <Input maxLength={200} disabled={readOnly} className="node-form-name" />
      </Form.Item>
      <Form.Item name="description" label={t('fields.description')}>
        <Input.TextArea rows={3} maxLength={2000} disabled={readOnly} />
      </Form.Item>
      <Form.Item name="enabled" label={t('fields.enabled')} valuePropName="checked">
        <Switch disabled={readOnly} />
      </Form.Item>
      <Form.Item name="max_runners" label={t('fields.maxRunners')}>
        <InputNumber min={1} max={1000} disabled={readOnly} />
      </Form.Item>
    </>
  );
}

/** Saves the form (toast on success). */
export function useSaveNode(id: string) {
  const { t } = useTranslation('nodes');
  const { message } = App.useApp();
  const update = useUpdateNode();
  return {
    pending: update.isPending,
    save: async (values: NodeEditBody) => {
      await update.mutateAsync({ id, body: { ...values, name: values.name?.trim() } });
      void message.success(t('saved'));
    },
  };
}

/** Inline form of the Overview tab. */
export default function NodeForm({ node, readOnly }: { node: NodeListItem; readOnly: boolean }) {
  const { t } = useTranslation(['nodes', 'common']);
  const form = useNodeForm(node);
  const { save, pending } = useSaveNode(node._id);
  return (
    <Form
      form={form}
      layout="vertical"
      className="node-form"
      style={{ maxWidth: 560 }}
      onFinish={(v) => void save(v)}
      onFinishFailed={showSubmitBlocked}
      disabled={readOnly}
    >
      <NodeFormFields readOnly={readOnly} />
      {!readOnly && (
        <Button type="primary" htmlType="submit" loading={pending} className="node-form-save">
          {t('common:save')}
        </Button>
      )}
    </Form>
  );
}
