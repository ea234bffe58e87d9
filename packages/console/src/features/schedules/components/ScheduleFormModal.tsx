/**
 * Add/edit dialog: spider, run type + nodes, cron with validation and the next 5 run times, param, retries and the
 * queue priority of the tasks its fires make, and whether a fire is skipped while the previous run still goes.
 */
import { useEffect, useMemo } from 'react';
import { Alert, Form, Input, InputNumber, Modal, Radio, Select, Switch, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  PRIORITY_DEFAULT,
  RETRY_MAX,
  RUN_TYPES,
  type RunType,
  type ScheduleBody,
  type ScheduleInfo,
} from '@crawldeck/shared';
import { useNodeOptions, useSaveSchedule, useScheduleMeta, useSpiderOptions } from '../api.ts';
import { describeCron, formatInZone, nextCronRuns, validateCron } from '../cron.ts';
import TourFor from '../../tours/TourFor.tsx';
import PrioritySelect from '../../tasks/components/PrioritySelect.tsx';
import { toasts } from '../../../api/toasts.ts';

interface Props {
  open: boolean;
  /** Editing this schedule; null/undefined = add. */
  schedule?: ScheduleInfo | null;
  /** Pre-selected (and fixed) spider, from Spider detail → Schedules. */
  spiderId?: string;
  onClose(): void;
}

interface FormValues {
  name: string;
  spider_id: string;
  run_type: RunType;
  node_ids: string[];
  cron: string;
  timezone: string;
  param: string;
  retries: number;
  priority: number;
  skip_if_running: boolean;
  description: string;
  enabled: boolean;
}

function timezones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? ['UTC'];
  } catch {
    return ['UTC'];
  }
}

export default function ScheduleFormModal({ open, schedule, spiderId, onClose }: Props) {
  const { t, i18n } = useTranslation(['schedules', 'tasks']);
  const [form] = Form.useForm<FormValues>();
  const spiders = useSpiderOptions();
  const nodes = useNodeOptions();
  const meta = useScheduleMeta();
  const save = useSaveSchedule();
  const runType = Form.useWatch('run_type', form);
  const cron = Form.useWatch('cron', form) ?? '';
  const timezone = Form.useWatch('timezone', form) ?? '';
  const zones = useMemo(timezones, []);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(
      schedule
        ? {
            name: schedule.name,
            spider_id: schedule.spider_id,
            run_type: schedule.run_type,
            node_ids: schedule.node_ids,
            cron: schedule.cron,
            timezone: schedule.timezone,
            param: schedule.param,
            retries: schedule.retries,
            priority: schedule.priority,
            skip_if_running: schedule.skip_if_running,
            description: schedule.description,
            enabled: schedule.enabled,
          }
        : {
            name: '',
            spider_id: spiderId,
            run_type: 'random',
            node_ids: [],
            cron: '0 0 0 * * *',
            timezone: meta.data?.default_timezone ?? 'UTC',
            param: '',
            retries: 0,
            priority: PRIORITY_DEFAULT,
            skip_if_running: false,
            description: '',
            enabled: true,
          },
    );
  }, [open, schedule, spiderId, form, meta.data?.default_timezone]);

  const cronError = cron ? validateCron(cron, timezone || undefined) : null;
  const preview = !cron || cronError ? [] : nextCronRuns(cron, 5, timezone || undefined);
  const human = cron && !cronError ? describeCron(cron, i18n.language) : '';

  async function submit() {
    let values: FormValues;
    try {
      values = await form.validateFields();
    } catch {
      void toasts().error(t('messages.submitBlocked'));
      return;
    }
    const body: ScheduleBody = {
      name: values.name.trim(),
      spider_id: values.spider_id,
      run_type: values.run_type,
      node_ids: values.run_type === 'selected-nodes' ? values.node_ids : [],
      cron: values.cron.trim(),
      timezone: values.timezone,
      param: values.param ?? '',
      retries: values.retries ?? 0,
      priority: values.priority ?? PRIORITY_DEFAULT,
      skip_if_running: !!values.skip_if_running,
      description: values.description ?? '',
      enabled: values.enabled,
    };
    await save.mutateAsync({ id: schedule?._id, form: body });
    void toasts().success(t('messages.saved'));
    onClose();
  }

  return (
    <Modal
      open={open}
      title={schedule ? t('edit') : t('add')}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={save.isPending}
      okText={t('common:save')}
      cancelText={t('common:cancel')}
      width={640}
      destroyOnHidden
      className="schedule-form-modal"
    >
      <Form form={form} layout="vertical" requiredMark name="schedule">
        <TourFor name="schedule-list-add" />
        <Form.Item
          name="name"
          data-tour="schedule-add-name"
          label={t('form.name')}
          rules={[{ required: true, whitespace: true, message: t('form.nameRequired') }]}
        >
          <Input placeholder={t('form.namePlaceholder')} maxLength={200} />
        </Form.Item>
        <Form.Item
          name="spider_id"
          data-tour="schedule-add-spider"
          label={t('form.spider')}
          rules={[{ required: true, message: t('form.spiderRequired') }]}
        >
          <Select
            showSearch
            disabled={!!spiderId}
            placeholder={t('form.spiderPlaceholder')}
            loading={spiders.isLoading}
            optionFilterProp="label"
            options={(spiders.data ?? []).map((s) => ({ value: s._id, label: s.display_name || s.name }))}
          />
        </Form.Item>
        <Form.Item name="run_type" data-tour="schedule-add-run-type" label={t('form.runType')}>
          <Radio.Group options={RUN_TYPES.map((r) => ({ value: r, label: t(`runTypes.${r}`) }))} optionType="button" />
        </Form.Item>
        {runType === 'selected-nodes' && (
          <Form.Item
            name="node_ids"
            label={t('form.nodes')}
            rules={[{ required: true, type: 'array', min: 1, message: t('form.nodesRequired') }]}
          >
            <Select
              mode="multiple"
              loading={nodes.isLoading}
              options={(nodes.data ?? []).map((n) => ({ value: n._id, label: `${n.name} (${n.status})` }))}
            />
          </Form.Item>
        )}
        <Form.Item
          name="cron"
          data-tour="schedule-add-cron"
          label={t('form.cron')}
          extra={t('form.cronHelp')}
          rules={[
            { required: true, whitespace: true, message: t('form.cronRequired') },
            {
              validator: async (_, v: string) => {
                if (!v) return;
                const err = validateCron(v, form.getFieldValue('timezone') || undefined);
                if (err) throw new Error(`${t('form.cronInvalid')}: ${err}`);
              },
            },
          ]}
        >
          <Input className="cron-input" placeholder="0 0 0 * * *" style={{ fontFamily: 'monospace' }} />
        </Form.Item>
        {preview.length > 0 && (
          <Alert
            className="cron-preview"
            type="info"
            style={{ marginBottom: 16 }}
            message={human}
            description={
              <div>
                <Typography.Text type="secondary">{t('form.nextRuns')}</Typography.Text>
                <ol style={{ margin: '4px 0 0', paddingLeft: 20 }}>
                  {preview.map((d) => (
                    <li key={d.getTime()}>{formatInZone(d, timezone)}</li>
                  ))}
                </ol>
              </div>
            }
          />
        )}
        <Form.Item name="timezone" data-tour="schedule-add-timezone" label={t('form.timezone')}>
          <Select showSearch options={zones.map((z) => ({ value: z, label: z }))} />
        </Form.Item>
        <Form.Item name="param" data-tour="schedule-add-param" label={t('form.param')}>
          <Input placeholder={t('form.paramPlaceholder')} maxLength={10000} />
        </Form.Item>
        <Form.Item
          name="retries"
          data-tour="schedule-add-retries"
          label={t('form.retries')}
          extra={t('form.retriesHelp', { max: RETRY_MAX })}
        >
          <InputNumber min={0} max={RETRY_MAX} precision={0} />
        </Form.Item>
        <Form.Item name="priority" label={t('tasks:priority.label')} extra={t('tasks:priority.hint')}>
          <PrioritySelect className="schedule-priority" data-testid="schedule-priority" />
        </Form.Item>
        <Form.Item
          name="skip_if_running"
          label={t('form.skipIfRunning')}
          extra={t('form.skipIfRunningHelp')}
          valuePropName="checked"
        >
          <Switch data-testid="schedule-skip-if-running" />
        </Form.Item>
        <Form.Item name="description" data-tour="schedule-add-description" label={t('form.description')}>
          <Input.TextArea rows={2} maxLength={2000} />
        </Form.Item>
        <Form.Item name="enabled" data-tour="schedule-add-enabled" label={t('form.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </Modal>
  );
}
