/** Add/edit a webhook: URL (required, http/https), events, spiders (empty = global), write-only secret, template. */
import { useEffect } from 'react';
import { Checkbox, Form, Input, Modal, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  WEBHOOK_EVENTS,
  WEBHOOK_PLACEHOLDERS,
  renderWebhookTemplate,
  validateWebhookUrl,
  type WebhookBody,
  type WebhookEvent,
  type WebhookInfo,
} from '@crawldeck/shared';
import { useSaveWebhook } from '../api.ts';
import { useSpiderOptions } from '../../schedules/api.ts';
import { toasts } from '../../../api/toasts.ts';

interface FormValues {
  name: string;
  url: string;
  events: WebhookEvent[];
  spider_ids: string[];
  secret: string;
  remove_secret: boolean;
  template: string;
  enabled: boolean;
}

const SAMPLE: Record<string, unknown> = {
  event: 'test',
  ts: new Date(0).toISOString(),
  task: {
    id: 'x',
    status: 'finished',
    error: '',
    spider_id: 'x',
    spider_name: 'x',
    node_id: 'x',
    node_name: 'x',
    schedule_id: null,
    param: '',
    result_count: 1,
    create_ts: null,
    finish_ts: null,
    runtime_duration: 1,
  },
  node: { id: 'x', name: 'x', status: 'online' },
};

/** The form's values when it opens: the webhook's own, or a new one on the two task outcomes. */
function initialValues(webhook: WebhookInfo | null | undefined): FormValues {
  return webhook
    ? {
        name: webhook.name,
        url: webhook.url,
        events: webhook.events,
        spider_ids: webhook.spider_ids,
        secret: '',
        remove_secret: false,
        template: webhook.template,
        enabled: webhook.enabled,
      }
    : {
        name: '',
        url: '',
        events: ['task_finished', 'task_error'],
        spider_ids: [],
        secret: '',
        remove_secret: false,
        template: '',
        enabled: true,
      };
}

/** The body sent on save, from the form's values. */
function toBody(v: FormValues, webhook: WebhookInfo | null | undefined): WebhookBody {
  const body: WebhookBody = {
    name: v.name?.trim() ?? '',
    url: v.url.trim(),
    events: v.events,
    spider_ids: v.spider_ids ?? [],
    template: v.template ?? '',
    enabled: v.enabled,
  };
  // Secret is write-only: send it only when typed (or '' to remove it).
  if (v.secret) body.secret = v.secret;
  else if (webhook && v.remove_secret) body.secret = '';
  return body;
}

export default function WebhookFormModal({
  open,
  webhook,
  onClose,
}: {
  open: boolean;
  webhook?: WebhookInfo | null;
  onClose(): void;
}) {
  const { t } = useTranslation('webhooks');
  const [form] = Form.useForm<FormValues>();
  const spiders = useSpiderOptions();
  const save = useSaveWebhook();

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(initialValues(webhook));
  }, [open, webhook, form]);

  async function submit() {
    let v: FormValues;
    try {
      v = await form.validateFields();
    } catch {
      void toasts().error(t('messages.submitBlocked'));
      return;
    }
    await save.mutateAsync({ id: webhook?._id, form: toBody(v, webhook) });
    void toasts().success(t('messages.saved'));
    onClose();
  }

  return (
    <Modal
      open={open}
      title={webhook ? t('edit') : t('add')}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={save.isPending}
      okText={t('common:save')}
      cancelText={t('common:cancel')}
      width={640}
      destroyOnHidden
      className="webhook-form-modal"
    >
      <Form form={form} layout="vertical" name="webhook">
        <Form.Item name="name" label={t('form.name')}>
          <Input maxLength={200} />
        </Form.Item>
        <Form.Item
          name="url"
          label={t('form.url')}
          required
          rules={[
            {
              validator: async (_, v: string) => {
                const err = validateWebhookUrl(v);
                if (err)
                  throw new Error(err === 'A webhook URL is required' ? t('form.urlRequired') : t('form.urlInvalid'));
              },
            },
          ]}
        >
          <Input placeholder="https://example.com/hooks/crawldeck" maxLength={2000} />
        </Form.Item>
        <Form.Item
          name="events"
          label={t('form.events')}
          rules={[{ required: true, type: 'array', min: 1, message: t('form.eventsRequired') }]}
        >
          <Checkbox.Group options={WEBHOOK_EVENTS.map((e) => ({ value: e, label: t(`events.${e}`) }))} />
        </Form.Item>
        <Form.Item name="spider_ids" label={t('form.spiders')} extra={t('form.spidersHelp')}>
          <Select
            mode="multiple"
            allowClear
            showSearch
            optionFilterProp="label"
            loading={spiders.isLoading}
            options={(spiders.data ?? []).map((s) => ({ value: s._id, label: s.display_name || s.name }))}
          />
        </Form.Item>
        <Form.Item
          name="secret"
          label={t('form.secret')}
          extra={webhook?.has_secret ? t('form.secretKeep') : t('form.secretHelp')}
        >
          <Input.Password autoComplete="new-password" maxLength={500} />
        </Form.Item>
        {webhook?.has_secret && (
          <Form.Item name="remove_secret" valuePropName="checked">
            <Checkbox>{t('form.secretRemove')}</Checkbox>
          </Form.Item>
        )}
        <Form.Item
          name="template"
          label={t('form.template')}
          extra={`${t('form.templateHelp', { example: '{{task.status}}' })} ${WEBHOOK_PLACEHOLDERS.map((p) => `{{${p}}}`).join(' ')}`}
          rules={[
            {
              validator: async (_, v: string) => {
                if (!v?.trim()) return;
                try {
                  renderWebhookTemplate(v, SAMPLE);
                } catch {
                  throw new Error(t('form.templateInvalid'));
                }
              },
            },
          ]}
        >
          <Input.TextArea
            rows={5}
            style={{ fontFamily: 'monospace' }}
            placeholder={'{"text": "Task {{task.id}} of {{task.spider_name}}: {{task.status}}"}'}
          />
        </Form.Item>
        <Form.Item name="enabled" label={t('form.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </Modal>
  );
}
