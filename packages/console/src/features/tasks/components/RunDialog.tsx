/**
 * Run dialog (PUT /tasks for one spider, POST /spiders-run for several): run type random / all nodes / selected
 * nodes with a node picker, the parameters appended to the spider's command, the tasks' queue priority and their
 * maximum run time (empty: the spider's own).
 * Scrapy projects: the spider names come from GET /spiders/{id}/scrapy/spiders. The node runs `cmd + ' ' + param`,
 * so when the command is a bare `scrapy crawl` (or empty) the chosen name goes into the param; when the command
 * already names a spider (`scrapy crawl quotes`), the picker shows that name chosen (the project's other spiders
 * listed but not selectable: running one means changing the command) and the param carries only extra options.
 */
import { useEffect, useMemo, useState } from 'react';
import {
  App,
  Alert,
  Button,
  Form,
  Input,
  InputNumber,
  Modal,
  Radio,
  Select,
  Space,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { CaretRightOutlined } from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { ButtonProps } from 'antd';
import { PRIORITY_DEFAULT, TIMEOUT_MAX_SECONDS, type RunType } from '@crawldeck/shared';
import { failureText } from '../../../api/request.ts';
import { useFilterOptions, useRunSpiders, useRunTask, useScrapySpiderNames } from '../api.ts';
import { buildParam, scrapyMode } from '../run-param.ts';
import PrioritySelect from './PrioritySelect.tsx';
import { showSubmitBlocked } from '../../../app/submitBlocked.ts';

export interface RunnableSpider {
  _id: string;
  name: string;
  display_name?: string;
  cmd?: string;
  is_scrapy?: boolean | number;
}

interface FormValues {
  run_type: RunType;
  node_ids?: string[];
  param?: string;
  scrapy_spider?: string;
  priority: number;
  /** Seconds; empty follows the spider's own maximum run time. */
  timeout?: number | null;
}

export default function RunDialog({
  open,
  spiders,
  onClose,
}: {
  open: boolean;
  spiders: RunnableSpider[];
  onClose(): void;
}) {
  const { t } = useTranslation(['tasks', 'common']);
  const { message, notification } = App.useApp();
  const navigate = useNavigate();
  const [form] = Form.useForm<FormValues>();
  const { nodes } = useFilterOptions();
  const runOne = useRunTask();
  const runMany = useRunSpiders();
  const single = spiders.length === 1 ? spiders[0] : null;
  const scrapy = !!single?.is_scrapy;
  const mode = scrapy ? scrapyMode(single?.cmd) : { mode: 'none' as const };
  const needsName = scrapy && (mode.mode === 'name' || mode.mode === 'full');
  const fixedName = scrapy && mode.mode === 'fixed' ? mode.fixedName : undefined;
  const showPicker = needsName || !!fixedName;
  const names = useScrapySpiderNames(single?._id ?? '', open && scrapy);
  const runType = Form.useWatch('run_type', form);
  const param = Form.useWatch('param', form);
  const scrapyName = Form.useWatch('scrapy_spider', form);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      form.resetFields();
      if (fixedName) form.setFieldValue('scrapy_spider', fixedName);
      setError(null);
    }
  }, [open, form, fixedName]);
  useEffect(() => {
    if (open && needsName && names.data?.length && !form.getFieldValue('scrapy_spider'))
      form.setFieldValue('scrapy_spider', names.data[0]);
  }, [open, needsName, names.data, form]);

  const preview = useMemo(() => {
    if (!single) return '';
    const p = buildParam(single.cmd, scrapy, scrapyName, param);
    return [single.cmd, p].filter(Boolean).join(' ');
  }, [single, scrapy, scrapyName, param]);

  const submit = async () => {
    let v: FormValues;
    try {
      v = await form.validateFields();
    } catch {
      showSubmitBlocked(); // the form marks what is missing
      return;
    }
    setError(null);
    try {
      const node_ids = v.run_type === 'selected-nodes' ? v.node_ids : undefined;
      const ids = single
        ? await runOne.mutateAsync({
            spider_id: single._id,
            run_type: v.run_type,
            node_ids,
            param: buildParam(single.cmd, scrapy, v.scrapy_spider, v.param) || undefined,
            priority: v.priority,
            timeout: v.timeout ?? undefined,
          })
        : await runMany.mutateAsync({
            task_params: spiders.map((s) => ({
              spider_id: s._id,
              param: v.param?.trim() || undefined,
              priority: v.priority,
              timeout: v.timeout ?? undefined,
            })),
            run_type: v.run_type,
            node_ids,
          });
      onClose();
      const key = `run-${Date.now()}`;
      notification.success({
        key,
        message: t('tasks:run.started', { count: ids.length }),
        className: 'run-started',
        btn:
          ids.length > 0 ? (
            <Button
              type="primary"
              size="small"
              className="run-view-task"
              onClick={() => {
                notification.destroy(key);
                navigate(ids.length === 1 ? `/tasks/${ids[0]}` : '/tasks');
              }}
            >
              {t('tasks:run.viewTask')}
            </Button>
          ) : undefined,
      });
    } catch (err) {
      setError(failureText(err));
      void message.destroy();
    }
  };

  const nodeOptions = (nodes.data ?? []).map((n) => ({
    value: n._id,
    label: n.name,
    disabled: n.status === 'offline',
    status: n.status,
    type: n.type,
  }));
  const anyOnline = (nodes.data ?? []).some((n) => n.status !== 'offline');

  return (
    <Modal
      open={open}
      onCancel={onClose}
      title={
        single
          ? `${t('tasks:run.title')} · ${single.display_name || single.name}`
          : t('tasks:run.titleMany', { count: spiders.length })
      }
      okText={t('tasks:run.submit')}
      cancelText={t('common:cancel')}
      okButtonProps={{ icon: <CaretRightOutlined />, className: 'run-submit' }}
      onOk={() => void submit()}
      confirmLoading={runOne.isPending || runMany.isPending}
      className="run-dialog"
      width={600}
      destroyOnHidden
    >
      {!single && (
        <Space size={[4, 4]} wrap style={{ marginBottom: 12 }}>
          {spiders.map((s) => (
            <Tag key={s._id}>{s.display_name || s.name}</Tag>
          ))}
        </Space>
      )}
      {nodes.isSuccess && !anyOnline && (
        <Alert type="warning" showIcon message={t('tasks:run.noOnline')} style={{ marginBottom: 12 }} />
      )}
      <Form<FormValues>
        form={form}
        layout="vertical"
        initialValues={{ run_type: 'random', priority: PRIORITY_DEFAULT }}
        requiredMark
      >
        <Form.Item name="run_type" label={t('tasks:run.runType')} required>
          <Radio.Group optionType="button" buttonStyle="solid" className="run-type">
            <Radio.Button value="random">{t('tasks:runTypes.random')}</Radio.Button>
            <Radio.Button value="all-nodes">{t('tasks:runTypes.all-nodes')}</Radio.Button>
            <Radio.Button value="selected-nodes">{t('tasks:runTypes.selected-nodes')}</Radio.Button>
          </Radio.Group>
        </Form.Item>
        {runType === 'selected-nodes' && (
          <Form.Item
            name="node_ids"
            label={t('tasks:run.nodes')}
            rules={[{ required: true, message: t('tasks:run.nodesRequired') }]}
          >
            <Select
              mode="multiple"
              className="run-nodes"
              options={nodeOptions}
              optionRender={(o) => (
                <Space>
                  <span>{o.label}</span>
                  <Tag bordered={false}>{o.data.type}</Tag>
                  {o.data.status !== 'online' && (
                    <Tag color={o.data.status === 'offline' ? 'default' : 'orange'}>
                      {t(`tasks:run.${o.data.status}`)}
                    </Tag>
                  )}
                </Space>
              )}
            />
          </Form.Item>
        )}
        {showPicker && (
          <Form.Item
            name="scrapy_spider"
            label={t('tasks:run.scrapySpider')}
            rules={[{ required: true, message: t('tasks:run.scrapySpiderRequired') }]}
            extra={fixedName ? t('tasks:run.scrapyFixed') : undefined}
          >
            <Select
              showSearch
              loading={names.isLoading}
              className="run-scrapy-spider"
              options={scrapyOptions(names.data, fixedName)}
              status={names.isError ? 'error' : undefined}
            />
          </Form.Item>
        )}
        {scrapy && names.isError && (
          <Alert
            type="error"
            showIcon
            style={{ marginBottom: 12 }}
            message={t('tasks:run.scrapyLoadError', { error: failureText(names.error) })}
          />
        )}
        <Form.Item
          name="param"
          label={scrapy ? t('tasks:run.scrapyFlags') : t('tasks:run.param')}
          extra={single ? t('tasks:run.paramHint', { cmd: single.cmd || '-' }) : t('tasks:run.paramHintMany')}
        >
          <Input className="run-param mono" placeholder={scrapy ? '-a key=value -s LOG_LEVEL=INFO' : '--pages 3'} />
        </Form.Item>
        <Form.Item name="priority" label={t('tasks:priority.label')} extra={t('tasks:priority.hint')}>
          <PrioritySelect className="run-priority" data-testid="run-priority" />
        </Form.Item>
        <Form.Item name="timeout" label={t('tasks:timeout.label')} extra={t('tasks:timeout.hint')}>
          <InputNumber
            min={0}
            max={TIMEOUT_MAX_SECONDS}
            precision={0}
            placeholder={t('tasks:timeout.spider')}
            addonAfter={t('tasks:timeout.unit')}
            style={{ width: 220 }}
            data-testid="run-timeout"
          />
        </Form.Item>
        {single && (
          <Form.Item label={t('tasks:run.preview')} style={{ marginBottom: 0 }}>
            <Typography.Text code className="run-cmd-preview mono" data-testid="run-cmd-preview">
              {preview || '-'}
            </Typography.Text>
          </Form.Item>
        )}
      </Form>
      {error && <Alert type="error" showIcon message={error} style={{ marginTop: 12 }} />}
    </Modal>
  );
}

/**
 * The Scrapy spiders to pick from. A command that names a spider fixes the choice: that name (listed even before
 * the project's spiders are loaded) is the only one selectable.
 */
function scrapyOptions(names: string[] | undefined, fixedName: string | undefined) {
  const all = fixedName && !names?.includes(fixedName) ? [fixedName, ...(names ?? [])] : (names ?? []);
  return all.map((n) => ({ value: n, label: n, disabled: !!fixedName && n !== fixedName }));
}

/** A spider that has no command and is no Scrapy project (whose spider is chosen in the dialog) cannot run. */
export function cannotRun(s: RunnableSpider): boolean {
  return !(s.cmd ?? '').trim() && !s.is_scrapy;
}

/** The Run button with its dialog, mounted on the spider list (row and batch) and the spider detail header. */
export function RunSpiderButton({
  spiders,
  batch,
  ...props
}: { spiders: RunnableSpider[]; batch?: boolean } & Omit<ButtonProps, 'onClick'>) {
  const { t } = useTranslation('tasks');
  const [open, setOpen] = useState(false);
  const noCommand = spiders.filter(cannotRun);
  const reason = noCommand.length
    ? t('run.noCommand', { names: noCommand.map((s) => s.display_name || s.name).join(', ') })
    : undefined;
  return (
    <>
      <Tooltip title={reason}>
        <Button
          icon={<CaretRightOutlined />}
          {...props}
          disabled={!spiders.length || !!reason || props.disabled}
          onClick={() => setOpen(true)}
          data-testid={batch ? 'spider-batch-run' : 'spider-run'}
          data-disabled-reason={reason}
        >
          {batch ? t('run.batch', { count: spiders.length }) : t('run.button')}
        </Button>
      </Tooltip>
      <RunDialog open={open} spiders={spiders} onClose={() => setOpen(false)} />
    </>
  );
}
