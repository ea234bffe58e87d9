/** Add or edit a rule: the condition (with its threshold), what it covers, its channels, quiet hours, dedupe. */
import { useEffect } from 'react';
import { Checkbox, Form, Input, InputNumber, Modal, Select, Space, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  NODE_EVENTS,
  RULE_EVENTS,
  THRESHOLD_EVENTS,
  isNodeResourceEvent,
  type RuleBody,
  type RuleEvent,
  type RuleInfo,
} from '@crawldeck/shared';
import { useChannels, useSaveRule } from '../api.ts';
import { useSpiderOptions } from '../../schedules/api.ts';
import { useProjectTags, useProjects } from '../../projects/api.ts';
import { toasts } from '../../../api/toasts.ts';

type FormValues = Required<Omit<RuleBody, 'threshold'>> & { threshold: number | null };

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
const THRESHOLD_LABELS: Partial<Record<RuleEvent, string>> = {
  error_lines: 'fields.thresholdLines',
  results_below: 'fields.thresholdPercent',
  runtime_above: 'fields.thresholdTimes',
  node_cpu_above: 'fields.thresholdUsage',
  node_mem_above: 'fields.thresholdUsage',
  node_disk_above: 'fields.thresholdUsage',
};

function ScopeFields() {
  const { t } = useTranslation('notifications');
  const spiders = useSpiderOptions();
  const projects = useProjects();
  const tags = useProjectTags();
  return (
    <>
      <Form.Item name="project_ids" label={t('fields.project_ids')}>
        <Select
          mode="multiple"
          allowClear
          options={(projects.data ?? []).map((p) => ({ value: p._id, label: p.name }))}
        />
      </Form.Item>
      <Form.Item name="spider_ids" label={t('fields.spider_ids')}>
        <Select
          mode="multiple"
          allowClear
          optionFilterProp="label"
          options={(spiders.data ?? []).map((s) => ({ value: s._id, label: s.display_name || s.name }))}
        />
      </Form.Item>
      <Form.Item name="tags" label={t('fields.tags')}>
        <Select mode="tags" allowClear options={(tags.data ?? []).map((tag) => ({ value: tag, label: tag }))} />
      </Form.Item>
    </>
  );
}

export default function RuleFormModal({
  open,
  rule,
  onClose,
}: {
  open: boolean;
  rule?: RuleInfo | null;
  onClose(): void;
}) {
  const { t } = useTranslation('notifications');
  const [form] = Form.useForm<FormValues>();
  const save = useSaveRule();
  const channels = useChannels();
  const event: RuleEvent = Form.useWatch('event', form) ?? rule?.event ?? 'task_failed';

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(
      rule ?? {
        event: 'task_failed',
        threshold: null,
        stop_task: false,
        project_ids: [],
        spider_ids: [],
        tags: [],
        channel_ids: [],
        quiet_start: '',
        quiet_end: '',
        dedupe_minutes: 0,
        for_seconds: 300,
        enabled: true,
      },
    );
  }, [open, rule, form]);

  async function submit() {
    const v = await form.validateFields();
    const scoped = !NODE_EVENTS.includes(event);
    const body: RuleBody = {
      name: v.name,
      event: v.event,
      threshold: THRESHOLD_EVENTS.includes(event) ? v.threshold : null,
      stop_task: event === 'error_lines' ? !!v.stop_task : false,
      project_ids: scoped ? (v.project_ids ?? []) : [],
      spider_ids: scoped ? (v.spider_ids ?? []) : [],
      tags: scoped ? (v.tags ?? []) : [],
      channel_ids: v.channel_ids,
      quiet_start: v.quiet_start ?? '',
      quiet_end: v.quiet_end ?? '',
      dedupe_minutes: v.dedupe_minutes ?? 0,
      for_seconds: isNodeResourceEvent(event) ? (v.for_seconds ?? 0) : 0,
      enabled: v.enabled,
    };
    await save.mutateAsync(rule ? { id: rule._id, form: body } : { form: body });
    void toasts().success(t('messages.saved'));
    onClose();
  }

  const quietRule = { pattern: HHMM, message: 'HH:MM' };
  return (
    <Modal
      open={open}
      title={rule ? t('rules.edit') : t('rules.add')}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={save.isPending}
      destroyOnHidden
      className="rule-form"
    >
      <Form form={form} layout="vertical">
        <Form.Item name="name" label={t('fields.name')} rules={[{ required: true }]}>
          <Input className="rule-name" />
        </Form.Item>
        <Form.Item name="event" label={t('fields.event')}>
          <Select className="rule-event" options={RULE_EVENTS.map((e) => ({ value: e, label: t(`events.${e}`) }))} />
        </Form.Item>
        {THRESHOLD_EVENTS.includes(event) && (
          <Form.Item
            name="threshold"
            label={t(THRESHOLD_LABELS[event] ?? 'fields.threshold')}
            rules={[{ required: true }]}
          >
            <InputNumber
              min={1}
              max={event === 'error_lines' ? 1_000_000 : 100}
              precision={event === 'error_lines' ? 0 : undefined}
            />
          </Form.Item>
        )}
        {event === 'error_lines' && (
          <Form.Item name="stop_task" valuePropName="checked" children={<Checkbox>{t('fields.stop_task')}</Checkbox>} />
        )}
        {isNodeResourceEvent(event) && (
          <Form.Item name="for_seconds" label={t('fields.for_seconds')} rules={[{ required: true }]}>
            <InputNumber className="rule-for-seconds" min={0} max={604_800} precision={0} />
          </Form.Item>
        )}
        {!NODE_EVENTS.includes(event) && <ScopeFields />}
        <Form.Item name="channel_ids" label={t('fields.channel_ids')} rules={[{ required: true }]}>
          <Select
            mode="multiple"
            className="rule-channels"
            options={(channels.data ?? []).map((c) => ({ value: c._id, label: `${c.name} (${t(`kinds.${c.kind}`)})` }))}
          />
        </Form.Item>
        <Form.Item label={t('fields.quiet')}>
          <Space>
            <Form.Item
              name="quiet_start"
              noStyle
              rules={[quietRule]}
              children={<Input placeholder="22:00" style={{ width: 90 }} />}
            />
            <span>–</span>
            <Form.Item
              name="quiet_end"
              noStyle
              rules={[quietRule]}
              children={<Input placeholder="07:00" style={{ width: 90 }} />}
            />
          </Space>
        </Form.Item>
        <Form.Item name="dedupe_minutes" label={t('fields.dedupe_minutes')}>
          <InputNumber min={0} max={10080} precision={0} />
        </Form.Item>
        <Form.Item name="enabled" label={t('fields.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </Modal>
  );
}
