/** Spider detail, Overview tab: the spider's fields with their validation and save; Scrapy and Git panels below. */
import { useEffect, useMemo } from 'react';
import { App, Button, Col, Descriptions, Divider, Form, Input, Radio, Row, Select, Switch, Typography } from 'antd';
import { SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { sourceFolderProblem, type RetryOn } from '@crawldeck/shared';
import { useProjects } from '../../projects/api.ts';
import { useUpdateSpider } from '../api.ts';
import { SPIDER_NAME_PATTERN } from '../components/SpiderAddModal.tsx';
import type { DedupMethod, Spider, SpiderForm, SpiderType } from '../types.ts';
import type { SpiderTabProps } from './types.ts';
import ScrapyPanel from '../components/ScrapyPanel.tsx';
import GitPanel from '../components/GitPanel.tsx';
import { DataSourcePicker } from '../components/DataSourcePicker.tsx';
import LimitsFields from '../components/LimitsFields.tsx';
import RetryFields from '../components/RetryFields.tsx';

interface Values {
  name: string;
  display_name: string;
  type: SpiderType;
  cmd: string;
  col: string;
  src: string;
  project_id?: string;
  is_public: boolean;
  is_scrapy: boolean;
  is_dedup: boolean;
  dedup_field: string;
  dedup_method: DedupMethod;
  max_running: number | null;
  retries: number | null;
  retry_delay_seconds: number;
  retry_on: RetryOn[];
  limits: {
    memory_mb: number | null;
    cpu_percent: number | null;
    max_processes: number | null;
    timeout_seconds: number | null;
  };
}

function toValues(s: Spider): Values {
  return {
    name: s.name,
    display_name: s.display_name,
    type: s.type,
    cmd: s.cmd,
    col: s.col,
    src: s.src,
    project_id: s.project_id || undefined,
    is_public: s.is_public,
    is_scrapy: s.is_scrapy,
    is_dedup: s.is_dedup,
    dedup_field: s.dedup_field,
    dedup_method: s.dedup_method || 'ignore',
    max_running: s.max_running || null,
    retries: s.retries,
    retry_delay_seconds: s.retry_delay_seconds,
    retry_on: s.retry_on,
    limits: {
      memory_mb: s.limits.memory_mb || null,
      cpu_percent: s.limits.cpu_percent || null,
      max_processes: s.limits.max_processes || null,
      timeout_seconds: s.limits.timeout_seconds || null,
    },
  };
}

const fmt = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '-');

export default function OverviewTab({ spider }: SpiderTabProps) {
  const { t } = useTranslation(['spiders', 'common']);
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  const projects = useProjects();
  const update = useUpdateSpider(spider._id);
  const isDedup = Form.useWatch('is_dedup', form);
  const type = Form.useWatch('type', form);
  const initial = useMemo(() => toValues(spider), [spider]);

  useEffect(() => {
    form.setFieldsValue(initial);
  }, [form, initial]);

  const onSave = async () => {
    let v: Values;
    try {
      v = await form.validateFields();
    } catch {
      void message.error(t('spiders:submitErrors'));
      return;
    }
    const body: SpiderForm = {
      name: v.name.trim(),
      display_name: v.display_name?.trim() ?? '',
      type: v.type,
      cmd: v.cmd?.trim() ?? '',
      col: v.col?.trim() ?? '',
      src: v.src?.trim() ?? '',
      project_id: v.project_id || null,
      is_public: !!v.is_public,
      is_scrapy: !!v.is_scrapy,
      is_dedup: !!v.is_dedup,
      dedup_field: v.dedup_field?.trim() ?? '',
      dedup_method: v.dedup_method,
      max_running: v.max_running ?? 0,
      retries: v.retries ?? 0,
      retry_delay_seconds: v.retry_delay_seconds,
      retry_on: v.retry_on ?? [],
      limits: {
        memory_mb: v.limits?.memory_mb ?? 0,
        cpu_percent: v.limits?.cpu_percent ?? 0,
        max_processes: v.limits?.max_processes ?? 0,
        timeout_seconds: v.limits?.timeout_seconds ?? 0,
      },
    };
    // Git settings are saved by the Git panel below (components/GitPanel.tsx), not by this form.
    await update.mutateAsync(body);
    void message.success(t('spiders:saved'));
  };

  return (
    <div className="spider-overview">
      <Descriptions size="small" column={{ xs: 1, md: 3 }} className="spider-overview-meta">
        <Descriptions.Item label={t('spiders:fields.owner')}>
          {spider.owner || spider.owner_id || '-'}
        </Descriptions.Item>
        <Descriptions.Item label={t('spiders:fields.createTs')}>{fmt(spider.create_ts)}</Descriptions.Item>
        <Descriptions.Item label={t('spiders:fields.updateTs')}>{fmt(spider.update_ts)}</Descriptions.Item>
      </Descriptions>
      <Form<Values>
        form={form}
        layout="vertical"

        initialValues={initial}
        onFinish={() => void onSave().catch(() => undefined)}
        onFinishFailed={() => void message.error(t('spiders:submitErrors'))}
        className="spider-overview-form"
        data-testid="spider-overview-form"
      >
        <Divider orientation="left" orientationMargin={0} className="form-section">
          {t('spiders:sections.basic')}
        </Divider>
        <Row gutter={24}>
          <Col xs={24} md={12}>
            <Form.Item
              name="name"
              label={t('spiders:fields.name')}
              rules={[
                { required: true, whitespace: true, message: t('spiders:rules.nameRequired') },
                { pattern: SPIDER_NAME_PATTERN, message: t('spiders:rules.namePattern') },
                { max: 100 },
              ]}
            >
              <Input className="mono-input" />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item name="display_name" label={t('spiders:fields.displayName')} rules={[{ max: 200 }]}>
              <Input data-testid="overview-display-name" />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item name="type" label={t('spiders:fields.type')}>
              <Radio.Group optionType="button" buttonStyle="solid">
                <Radio.Button value="customized">{t('spiders:types.customized')}</Radio.Button>
                <Radio.Button value="configurable">{t('spiders:types.configurable')}</Radio.Button>
              </Radio.Group>
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item name="project_id" label={t('spiders:fields.project')}>
              <Select
                allowClear
                showSearch
                optionFilterProp="label"
                placeholder={t('spiders:noProject')}
                options={(projects.data ?? []).map((p) => ({ value: p._id, label: p.name }))}
              />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item
              name="cmd"
              label={t('spiders:fields.cmd')}
              rules={[
                { required: type !== 'configurable', whitespace: true, message: t('spiders:rules.cmdRequired') },
                { max: 4000 },
              ]}
            >
              <Input className="mono-input" placeholder={t('spiders:placeholders.cmd')} data-testid="overview-cmd" />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item
              name="src"
              label={t('spiders:fields.src')}
              tooltip={t('spiders:hints.src')}
              rules={[
                { max: 1000 },
                {
                  validator: (_, v: string | undefined) => {
                    const problem = v?.trim() ? sourceFolderProblem(v) : null;
                    return problem ? Promise.reject(new Error(problem)) : Promise.resolve();
                  },
                },
              ]}
            >
              <Input className="mono-input" placeholder={t('spiders:placeholders.src')} data-testid="overview-src" />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item name="is_public" label={t('spiders:fields.isPublic')} valuePropName="checked">
              <Switch />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item name="is_scrapy" label={t('spiders:fields.isScrapy')} valuePropName="checked">
              <Switch />
            </Form.Item>
          </Col>
        </Row>

        <Divider orientation="left" orientationMargin={0} className="form-section">
          {t('spiders:sections.results')}
        </Divider>
        <Row gutter={24}>
          <Col xs={24} md={12}>
            <Form.Item
              name="col"
              label={t('spiders:fields.col')}
              tooltip={t('spiders:hints.col')}
              rules={[{ max: 200 }]}
            >
              <Input className="mono-input" placeholder={`results_${spider.name}`} />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item
              name="is_dedup"
              label={t('spiders:fields.isDedup')}
              valuePropName="checked"
              tooltip={t('spiders:hints.dedup')}
            >
              <Switch data-testid="overview-dedup" />
            </Form.Item>
          </Col>
          {isDedup && (
            <>
              <Col xs={24} md={12}>
                <Form.Item
                  name="dedup_field"
                  label={t('spiders:fields.dedupField')}
                  rules={[
                    { required: true, whitespace: true, message: t('spiders:rules.dedupFieldRequired') },
                    { max: 200 },
                  ]}
                >
                  <Input
                    className="mono-input"
                    placeholder={t('spiders:placeholders.dedupField')}
                    data-testid="overview-dedup-field"
                  />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item name="dedup_method" label={t('spiders:fields.dedupMethod')}>
                  <Radio.Group>
                    <Radio value="ignore">{t('spiders:dedupMethods.ignore')}</Radio>
                    <Radio value="overwrite">{t('spiders:dedupMethods.overwrite')}</Radio>
                  </Radio.Group>
                </Form.Item>
              </Col>
            </>
          )}
        </Row>
        <LimitsFields />
        <RetryFields />

        <div className="form-actions">
          <Typography.Text type="secondary" className="form-actions-hint">
            {t('spiders:hints.saveOverview')}
          </Typography.Text>
          <Button onClick={() => form.setFieldsValue(initial)}>{t('spiders:reset')}</Button>
          <Button
            type="primary"
            htmlType="submit"
            icon={<SaveOutlined />}
            loading={update.isPending}
            data-testid="overview-save"
          >
            {t('common:save')}
          </Button>
        </div>
      </Form>
      {/* Scrapy project and Git repository panels (components/ScrapyPanel.tsx, GitPanel.tsx) */}
      <DataSourcePicker spider={spider} />
      {spider.is_scrapy && <ScrapyPanel spider={spider} />}
      <GitPanel spider={spider} />
    </div>
  );
}
