/** Add or edit a channel: its kind decides the fields; secrets are write-only (shown as set or not set). */
import { useEffect } from 'react';
import { Checkbox, Form, Input, InputNumber, Modal, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  CHANNEL_FIELDS,
  CHANNEL_KINDS,
  NOTIFY_LANGS,
  type ChannelConfig,
  type ChannelInfo,
  type ChannelKind,
  type ChannelSecrets,
  type NotifyLang,
} from '@crawldeck/shared';
import { useSaveChannel } from '../api.ts';
import { toasts } from '../../../api/toasts.ts';

interface FormValues {
  name: string;
  kind: ChannelKind;
  lang: NotifyLang;
  enabled: boolean;
  config: ChannelConfig;
  secrets: ChannelSecrets;
}

/** The config fields a form sends: only those of the kind, without empty optional ones. */
function configOf(kind: ChannelKind, c: ChannelConfig = {}): ChannelConfig {
  const out: Record<string, unknown> = {};
  for (const k of CHANNEL_FIELDS[kind].config) {
    const v = (c as Record<string, unknown>)[k];
    if (v !== undefined && v !== null && v !== '') out[k] = v;
  }
  return out as ChannelConfig;
}

/** Secrets typed in; an empty field keeps what is stored. */
function secretsOf(kind: ChannelKind, s: ChannelSecrets = {}): ChannelSecrets {
  const out: Record<string, string> = {};
  for (const k of CHANNEL_FIELDS[kind].secrets) {
    const v = (s as Record<string, string | undefined>)[k];
    if (v) out[k] = v;
  }
  return out;
}

function ConfigField({ name }: { name: string }) {
  const { t } = useTranslation('notifications');
  const label = t(`fields.${name}`);
  const path = ['config', name];
  if (name === 'port') return <Form.Item name={path} label={label} children={<InputNumber min={1} max={65535} />} />;
  if (name === 'skip_verify')
    return <Form.Item name={path} valuePropName="checked" children={<Checkbox>{label}</Checkbox>} />;
  if (name === 'security')
    return (
      <Form.Item name={path} label={label}>
        <Select
          options={(['starttls', 'tls', 'none'] as const).map((v) => ({ value: v, label: t(`security.${v}`) }))}
        />
      </Form.Item>
    );
  if (name === 'to') return <Form.Item name={path} label={label} children={<Select mode="tags" open={false} />} />;
  return <Form.Item name={path} label={label} children={<Input className={`channel-${name}`} />} />;
}

export default function ChannelFormModal({
  open,
  channel,
  onClose,
}: {
  open: boolean;
  channel?: ChannelInfo | null;
  onClose(): void;
}) {
  const { t, i18n } = useTranslation('notifications');
  const [form] = Form.useForm<FormValues>();
  const save = useSaveChannel();
  const consoleLang: NotifyLang = i18n.language.startsWith('en') ? 'en' : 'zh';
  const kind = Form.useWatch('kind', form) ?? channel?.kind ?? 'slack';

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(
      channel
        ? { ...channel, secrets: {} }
        : { kind: 'slack', lang: consoleLang, enabled: true, config: { port: 587, security: 'starttls' }, secrets: {} },
    );
  }, [open, channel, form, consoleLang]);

  async function submit() {
    const v = await form.validateFields();
    const body = {
      name: v.name,
      lang: v.lang,
      enabled: v.enabled,
      config: configOf(kind, v.config),
      secrets: secretsOf(kind, v.secrets),
    };
    await save.mutateAsync(channel ? { id: channel._id, form: body } : { form: { ...body, kind } });
    void toasts().success(t('messages.saved'));
    onClose();
  }

  return (
    <Modal
      open={open}
      title={channel ? t('channels.edit') : t('channels.add')}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={save.isPending}
      destroyOnHidden
      className="channel-form"
    >
      <Form form={form} layout="vertical">
        <Form.Item name="name" label={t('fields.name')} rules={[{ required: true }]}>
          <Input className="channel-name" />
        </Form.Item>
        <Form.Item name="kind" label={t('fields.kind')}>
          <Select
            disabled={!!channel}
            className="channel-kind"
            options={CHANNEL_KINDS.map((k) => ({ value: k, label: t(`kinds.${k}`) }))}
          />
        </Form.Item>
        <Form.Item name="lang" label={t('fields.lang')}>
          <Select options={NOTIFY_LANGS.map((l) => ({ value: l, label: t(`langs.${l}`) }))} />
        </Form.Item>
        {CHANNEL_FIELDS[kind].config.map((f) => (
          <ConfigField key={f} name={f} />
        ))}
        {CHANNEL_FIELDS[kind].secrets.map((f) => (
          <Form.Item
            key={f}
            name={['secrets', f]}
            label={t(`fields.${f}`)}
            rules={[{ required: !channel?.secrets_set.includes(f) && CHANNEL_FIELDS[kind].required.includes(f) }]}
          >
            <Input.Password
              className={`channel-secret-${f}`}
              autoComplete="new-password"
              placeholder={channel?.secrets_set.includes(f) ? t('fields.secretSet') : t('fields.secretNotSet')}
            />
          </Form.Item>
        ))}
        <Form.Item name="enabled" label={t('fields.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </Modal>
  );
}
