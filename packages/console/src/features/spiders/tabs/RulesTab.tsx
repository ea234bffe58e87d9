/**
 * Spider detail, Rules tab (spec §2; issue 7 item 3): the Spiderfile of a configurable spider as a form — start
 * URL, start stage, engine, settings (robots.txt, delay, max pages), stages (list selector, pagination, fields
 * with css|xpath, attr, next_stage, remark). "Extract fields" suggests the list selector and fields from the
 * start page, "Preview" shows the first rows the form would extract, "Convert to customized" generates a Scrapy
 * project. The Config tab edits the same Spiderfile as text through the same query (toolsApi.useSpiderfile).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Collapse,
  Empty,
  Form,
  Input,
  InputNumber,
  Result,
  Row,
  Select,
  Skeleton,
  Space,
  Switch,
  Table,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import {
  CaretRightOutlined,
  DeleteOutlined,
  EyeOutlined,
  PlusOutlined,
  SaveOutlined,
  SwapOutlined,
  ThunderboltOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import { useLocation, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { validateSpiderfile, type Spiderfile } from '@crawldeck/shared';
import { spiderKeys } from '../api.ts';
import {
  convertToCustomized,
  errorText,
  extractFields,
  previewCrawl,
  saveSpiderfileForm,
  useSpiderfile,
  useSpiderfileSaved,
  type PreviewResult,
} from '../toolsApi.ts';
import {
  emptyStage,
  toRulesValues,
  toSpiderfile,
  type RulesField,
  type RulesStage,
  type RulesValues,
} from './rulesModel.ts';
import type { SpiderTabProps } from './types.ts';
import '../components/tools.css';
import TourFor from '../../tours/TourFor.tsx';

export function NotConfigurable({ tab }: { tab: 'rules' | 'config' }) {
  const { t } = useTranslation('configSpider');
  return (
    <div className={`${tab}-not-config`} data-testid={`${tab}-not-configurable`}>
      <Result status="info" title={t('notConfigurableTitle')} subTitle={t('notConfigurableText')} />
    </div>
  );
}

/** Jumps to another tab of the spider detail (the page follows `?tab=`). */
export function useGoToTab() {
  const location = useLocation();
  const navigate = useNavigate();
  return (tab: string) => {
    const params = new URLSearchParams(location.search);
    params.set('tab', tab);
    navigate({ pathname: location.pathname, search: `?${params.toString()}` }, { replace: true });
  };
}

const SELECTOR_KINDS = [
  { value: 'css', label: 'CSS' },
  { value: 'xpath', label: 'XPath' },
];

export default function RulesTab({ spider }: SpiderTabProps) {
  const id = spider._id;
  const { t } = useTranslation(['configSpider', 'common']);
  const { message, modal } = App.useApp();
  const qc = useQueryClient();
  const goTo = useGoToTab();
  const sfQuery = useSpiderfile(spider);
  const saved = useSpiderfileSaved(id);
  const [form] = Form.useForm<RulesValues>();
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState<null | 'extract' | 'preview' | 'convert'>(null);
  const [preview, setPreview] = useState<PreviewResult | null>(null);
  const [previewError, setPreviewError] = useState('');
  const [changedElsewhere, setChangedElsewhere] = useState(false);
  const stages = Form.useWatch('stages', form) as RulesStage[] | undefined;
  const base = sfQuery.data?.spiderfile ?? null;
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  // The same query feeds the Config tab: follow its saves unless this form has unsaved edits.
  const contentKey = sfQuery.data ? sfQuery.data.content || JSON.stringify(sfQuery.data.spiderfile) : '';
  useEffect(() => {
    if (!base) return;
    if (dirtyRef.current) {
      setChangedElsewhere(true);
      return;
    }
    form.setFieldsValue(toRulesValues(base));
    setChangedElsewhere(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [contentKey]);

  const stageNames = useMemo(() => (stages ?? []).map((s) => s?.name?.trim()).filter(Boolean) as string[], [stages]);

  if (spider.type !== 'configurable') return <NotConfigurable tab="rules" />;
  if (sfQuery.isLoading) return <Skeleton active paragraph={{ rows: 10 }} />;
  if (sfQuery.isError)
    return (
      <Alert type="error" showIcon message={t('configSpider:loadFailed')} description={errorText(sfQuery.error)} />
    );
  if (!base) {
    return (
      <Alert
        type="warning"
        showIcon
        message={t('configSpider:invalidStored')}
        description={
          <>
            <ul className="config-problems">
              {(sfQuery.data?.problems ?? []).map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
            <Button size="small" onClick={() => goTo('config')}>
              {t('configSpider:openConfig')}
            </Button>
          </>
        }
        data-testid="rules-invalid-stored"
      />
    );
  }

  /** The form as a Spiderfile, or null (with the form's messages shown) when it is invalid. */
  const current = async (): Promise<Spiderfile | null> => {
    try {
      const v = await form.validateFields();
      const sf = toSpiderfile(v, base);
      const checked = validateSpiderfile(sf);
      if (!checked.ok) {
        setError(checked.problems.map((p) => p.message).join('; '));
        return null;
      }
      return checked.spiderfile;
    } catch {
      void message.error(t('configSpider:submitErrors'));
      return null;
    }
  };

  const onSave = async () => {
    const sf = await current();
    if (!sf) return;
    setSaving(true);
    try {
      const res = await saveSpiderfileForm(id, sf);
      setError('');
      setDirty(false);
      setChangedElsewhere(false);
      saved(res);
      void message.success(t('configSpider:saved'));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setSaving(false);
    }
  };

  const onReset = () => {
    form.setFieldsValue(toRulesValues(base));
    setDirty(false);
    setChangedElsewhere(false);
    setError('');
  };

  const onExtract = async () => {
    const url = (form.getFieldValue('start_url') as string | undefined)?.trim();
    setBusy('extract');
    try {
      const found = await extractFields(id, url || undefined);
      const all = (form.getFieldValue('stages') as RulesStage[]) ?? [];
      const startName = form.getFieldValue('start_stage') as string | undefined;
      let idx = all.findIndex((s) => s.name === startName);
      if (idx < 0) idx = 0;
      const target = all[idx] ?? emptyStage('list', true);
      // keep fields that lead to another stage (detail links); the suggestion replaces the rest
      const follow = target.fields.filter((f) => f.next_stage);
      const fields: RulesField[] = [
        ...found.fields.map((f) => ({
          name: f.name,
          sel: (f.xpath ? 'xpath' : 'css') as RulesField['sel'],
          selector: f.xpath || f.css,
          attr: f.attr,
          remark: f.remark,
        })),
        ...follow.filter((f) => !found.fields.some((x) => x.name === f.name)),
      ];
      const next: RulesStage = {
        ...target,
        is_list: true,
        list_sel: 'css',
        list_selector: found.list_css,
        ...(found.page_css ? { page_sel: 'css' as const, page_selector: found.page_css } : {}),
        fields,
      };
      const copy = [...all];
      copy[idx] = next;
      form.setFieldValue('stages', copy);
      setDirty(true);
      void message.success(
        t('configSpider:extracted', { count: found.count, selector: found.list_css, fields: found.fields.length }),
      );
    } catch (err) {
      modal.error({ title: t('configSpider:extractFailed'), content: errorText(err) });
    } finally {
      setBusy(null);
    }
  };

  const onPreview = async () => {
    const sf = await current();
    if (!sf) return;
    setBusy('preview');
    setPreviewError('');
    try {
      setPreview(await previewCrawl(id, sf, 10));
    } catch (err) {
      setPreview(null);
      setPreviewError(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  const onConvert = () =>
    modal.confirm({
      title: t('configSpider:convertTitle'),
      content: t('configSpider:convertText'),
      okText: t('configSpider:convert'),
      cancelText: t('common:cancel'),
      onOk: async () => {
        setBusy('convert');
        try {
          if (dirty) {
            const sf = await current();
            if (!sf) return;
            saved(await saveSpiderfileForm(id, sf));
            setDirty(false);
          }
          const res = await convertToCustomized(id);
          const { files: _files, ...spiderData } = res;
          qc.setQueryData(spiderKeys.detail(id), spiderData);
          void qc.invalidateQueries({ queryKey: spiderKeys.files(id) });
          void qc.invalidateQueries({ queryKey: ['spiders', 'list'] });
          void message.success(t('configSpider:converted', { count: res.files?.length ?? 0 }));
          goTo('overview');
        } catch (err) {
          // spec §8 'Converted unsuccessfully' (the server's reason follows)
          const reason = errorText(err).replace(/^Converted unsuccessfully:?\s*/i, '');
          modal.error({ title: t('configSpider:convertFailed'), content: reason, className: 'convert-failed' });
        } finally {
          setBusy(null);
        }
      },
    });

  const previewColumns = preview?.rows.length
    ? Object.keys(preview.rows[0]).map((k) => ({
        title: k,
        dataIndex: k,
        key: k,
        ellipsis: { showTitle: true },
        render: (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)),
      }))
    : [];

  return (
    <div className="rules-tab" data-testid="rules-tab">
      <TourFor name="spider-detail-config" />
      <div className="rules-header">
        <Typography.Text type="secondary">{t('configSpider:rulesIntro')}</Typography.Text>
        <Space wrap>
          <Tooltip title={t('configSpider:extractHint')}>
            <Button
              icon={<ThunderboltOutlined />}
              onClick={() => void onExtract()}
              loading={busy === 'extract'}
              data-tour="config-extract-fields"
              data-testid="rules-extract"
            >
              {t('configSpider:extract')}
            </Button>
          </Tooltip>
          <Button
            icon={<EyeOutlined />}
            onClick={() => void onPreview()}
            loading={busy === 'preview'}
            data-tour="config-preview"
            data-testid="rules-preview"
          >
            {t('configSpider:preview')}
          </Button>
          <Button
            icon={<SwapOutlined />}
            onClick={onConvert}
            loading={busy === 'convert'}
            data-tour="config-convert"
            data-testid="rules-convert"
          >
            {t('configSpider:convert')}
          </Button>
        </Space>
      </div>
      {changedElsewhere && (
        <Alert
          type="warning"
          showIcon
          className="rules-changed"
          message={t('configSpider:changedElsewhere')}
          action={
            <Button size="small" onClick={onReset}>
              {t('configSpider:loadSaved')}
            </Button>
          }
          style={{ marginBottom: 12 }}
        />
      )}
      <Form<RulesValues>
        form={form}
        layout="vertical"
        initialValues={toRulesValues(base)}
        onValuesChange={() => setDirty(true)}
        className="rules-form"
        data-testid="rules-form"
      >
        <Row gutter={16}>
          <Col xs={24} md={12}>
            <Form.Item
              name="start_url"
              label={t('configSpider:startUrl')}
              rules={[
                { required: true, whitespace: true, message: t('configSpider:startUrlRequired') },
                { pattern: /^https?:\/\/\S+$/i, message: t('configSpider:startUrlPattern') },
              ]}
              data-tour="config-start-url"
            >
              <Input className="mono-input" placeholder="https://example.com/list" data-testid="rules-start-url" />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item name="start_stage" label={t('configSpider:startStage')} data-tour="config-start-stage">
              <Select options={stageNames.map((n) => ({ value: n, label: n }))} data-testid="rules-start-stage" />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item
              name="engine"
              label={t('configSpider:engine')}
              tooltip={t('configSpider:engineHint')}
              data-tour="config-engine"
            >
              <Select options={[{ value: 'cheerio', label: 'cheerio (undici + CSS/XPath)' }]} />
            </Form.Item>
          </Col>
        </Row>
        <Row gutter={16} data-tour="config-settings">
          <Col xs={12} md={5}>
            <Form.Item
              name="robots"
              label={t('configSpider:robots')}
              tooltip={t('configSpider:robotsHint')}
              valuePropName="checked"
            >
              <Switch data-testid="rules-robots" />
            </Form.Item>
          </Col>
          <Col xs={12} md={5}>
            <Form.Item name="delay" label={t('configSpider:delay')} tooltip={t('configSpider:delayHint')}>
              <InputNumber
                min={0}
                max={3600}
                step={0.5}
                style={{ width: '100%' }}
                addonAfter="s"
                data-testid="rules-delay"
              />
            </Form.Item>
          </Col>
          <Col xs={12} md={5}>
            <Form.Item name="max_pages" label={t('configSpider:maxPages')} tooltip={t('configSpider:maxPagesHint')}>
              <InputNumber min={1} max={100000} precision={0} style={{ width: '100%' }} data-testid="rules-max-pages" />
            </Form.Item>
          </Col>
          <Col xs={24} md={9}>
            <Form.Item name="user_agent" label="User-Agent">
              <Input placeholder={t('configSpider:userAgentDefault')} />
            </Form.Item>
          </Col>
        </Row>

        <Form.List name="stages">
          {(stageItems, { add: addStage, remove: removeStage }) => (
            <div data-tour="config-stages">
              {stageItems.map((stageItem, si) => {
                const st = stages?.[si];
                return (
                  <Card
                    key={stageItem.key}
                    size="small"
                    className="rules-stage"
                    data-testid="rules-stage"
                    title={
                      <Space>
                        <span>{t('configSpider:stage', { n: si + 1 })}</span>
                        {st?.name && <Tag className="mono-tag">{st.name}</Tag>}
                        {st?.is_list && <Tag color="blue">{t('configSpider:list')}</Tag>}
                        {st?.name && st.name === form.getFieldValue('start_stage') && (
                          <Tag color="green">{t('configSpider:startTag')}</Tag>
                        )}
                      </Space>
                    }
                    extra={
                      <Button
                        type="text"
                        danger
                        size="small"
                        icon={<DeleteOutlined />}
                        disabled={stageItems.length <= 1}
                        onClick={() => removeStage(stageItem.name)}
                        data-testid="rules-stage-remove"
                      >
                        {t('configSpider:removeStage')}
                      </Button>
                    }
                  >
                    <Row gutter={12}>
                      <Col xs={24} md={6}>
                        <Form.Item
                          name={[stageItem.name, 'name']}
                          label={t('configSpider:stageName')}
                          rules={[
                            { required: true, whitespace: true, message: t('configSpider:stageNameRequired') },
                            { pattern: /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, message: t('configSpider:stageNamePattern') },
                            {
                              validator: (_, v: string) =>
                                v && (stages ?? []).filter((s) => s?.name?.trim() === v.trim()).length > 1
                                  ? Promise.reject(new Error(t('configSpider:stageNameTwice')))
                                  : Promise.resolve(),
                            },
                          ]}
                        >
                          <Input className="mono-input" data-testid="rules-stage-name" />
                        </Form.Item>
                      </Col>
                      <Col xs={8} md={3}>
                        <Form.Item
                          name={[stageItem.name, 'is_list']}
                          label={t('configSpider:isList')}
                          valuePropName="checked"
                        >
                          <Switch data-testid="rules-stage-is-list" />
                        </Form.Item>
                      </Col>
                      {st?.is_list && (
                        <Col xs={16} md={7}>
                          <Form.Item
                            label={t('configSpider:listSelector')}
                            tooltip={t('configSpider:listSelectorHint')}
                            required
                          >
                            <div className="rules-selector-pair">
                              <Form.Item name={[stageItem.name, 'list_sel']} noStyle>
                                <Select options={SELECTOR_KINDS} />
                              </Form.Item>
                              <Form.Item
                                name={[stageItem.name, 'list_selector']}
                                noStyle
                                rules={[
                                  { required: true, whitespace: true, message: t('configSpider:listSelectorRequired') },
                                ]}
                              >
                                <Input className="mono-input" placeholder="ul > li" data-testid="rules-list-selector" />
                              </Form.Item>
                            </div>
                          </Form.Item>
                        </Col>
                      )}
                      <Col xs={16} md={st?.is_list ? 5 : 9}>
                        <Form.Item label={t('configSpider:pageSelector')} tooltip={t('configSpider:pageSelectorHint')}>
                          <div className="rules-selector-pair">
                            <Form.Item name={[stageItem.name, 'page_sel']} noStyle>
                              <Select options={SELECTOR_KINDS} />
                            </Form.Item>
                            <Form.Item name={[stageItem.name, 'page_selector']} noStyle>
                              <Input className="mono-input" placeholder="a.next" data-testid="rules-page-selector" />
                            </Form.Item>
                          </div>
                        </Form.Item>
                      </Col>
                      <Col xs={8} md={3}>
                        <Form.Item name={[stageItem.name, 'page_attr']} label={t('configSpider:pageAttr')}>
                          <Input className="mono-input" placeholder="href" disabled={!st?.page_selector} />
                        </Form.Item>
                      </Col>
                    </Row>
                    <Form.List name={[stageItem.name, 'fields']}>
                      {(fieldItems, { add: addField, remove: removeField }) => (
                        <div className="rules-fields" data-tour={si === 0 ? 'config-fields' : undefined}>
                          <div className="rules-fields-head">
                            <span>{t('configSpider:fieldName')}</span>
                            <span>{t('configSpider:selectorKind')}</span>
                            <span>{t('configSpider:selector')}</span>
                            <span>{t('configSpider:attr')}</span>
                            <span>{t('configSpider:nextStage')}</span>
                            <span>{t('configSpider:remark')}</span>
                            <span />
                          </div>
                          {fieldItems.map((fi) => (
                            <div className="rules-field-row" key={fi.key} data-testid="rules-field">
                              <Form.Item
                                name={[fi.name, 'name']}
                                rules={[
                                  { required: true, whitespace: true, message: t('configSpider:fieldNameRequired') },
                                  {
                                    validator: (_, v: string) =>
                                      v && (st?.fields ?? []).filter((f) => f?.name?.trim() === v.trim()).length > 1
                                        ? Promise.reject(new Error(t('configSpider:fieldNameTwice')))
                                        : Promise.resolve(),
                                  },
                                ]}
                              >
                                <Input className="mono-input" placeholder="title" data-testid="rules-field-name" />
                              </Form.Item>
                              <Form.Item name={[fi.name, 'sel']}>
                                <Select options={SELECTOR_KINDS} data-testid="rules-field-sel" />
                              </Form.Item>
                              <Form.Item name={[fi.name, 'selector']}>
                                <Input
                                  className="mono-input"
                                  placeholder={t('configSpider:selectorPlaceholder')}
                                  data-testid="rules-field-selector"
                                />
                              </Form.Item>
                              <Form.Item name={[fi.name, 'attr']}>
                                <Input
                                  className="mono-input"
                                  placeholder={t('configSpider:attrPlaceholder')}
                                  data-testid="rules-field-attr"
                                />
                              </Form.Item>
                              <Form.Item name={[fi.name, 'next_stage']}>
                                <Select
                                  allowClear
                                  placeholder="-"
                                  options={stageNames
                                    .filter((n) => n !== st?.name)
                                    .map((n) => ({ value: n, label: n }))}
                                  data-testid="rules-field-next"
                                />
                              </Form.Item>
                              <Form.Item name={[fi.name, 'remark']}>
                                <Input placeholder={t('configSpider:remarkPlaceholder')} />
                              </Form.Item>
                              <Button
                                type="text"
                                danger
                                icon={<DeleteOutlined />}
                                disabled={fieldItems.length <= 1}
                                onClick={() => removeField(fi.name)}
                                aria-label={t('configSpider:removeField')}
                                data-testid="rules-field-remove"
                              />
                            </div>
                          ))}
                          <Button
                            type="dashed"
                            size="small"
                            icon={<PlusOutlined />}
                            onClick={() => addField({ name: '', sel: 'css' })}
                            data-tour={si === 0 ? 'config-add-field' : undefined}
                            data-testid="rules-field-add"
                          >
                            {t('configSpider:addField')}
                          </Button>
                        </div>
                      )}
                    </Form.List>
                  </Card>
                );
              })}
              <Button
                type="dashed"
                block
                icon={<PlusOutlined />}
                onClick={() => {
                  const names = new Set(stageNames);
                  let n = stageItems.length + 1;
                  while (names.has(`stage_${n}`)) n++;
                  addStage(emptyStage(names.has('detail') ? `stage_${n}` : 'detail'));
                }}
                data-tour="config-add-stage"
                data-testid="rules-stage-add"
              >
                {t('configSpider:addStage')}
              </Button>
            </div>
          )}
        </Form.List>

        {error && (
          <Alert
            type="error"
            showIcon
            className="rules-error"
            message={t('configSpider:saveFailed')}
            description={error}
            style={{ marginTop: 16 }}
            data-testid="rules-error"
          />
        )}
        <div className="rules-actions">
          <Typography.Text type={dirty ? 'warning' : 'secondary'} className="rules-actions-hint">
            {dirty ? t('configSpider:unsaved') : t('configSpider:savedHint')}
          </Typography.Text>
          <Button icon={<UndoOutlined />} onClick={onReset} disabled={!dirty}>
            {t('configSpider:reset')}
          </Button>
          <Button
            type="primary"
            icon={<SaveOutlined />}
            onClick={() => void onSave()}
            loading={saving}
            data-tour="config-save"
            data-testid="rules-save"
          >
            {t('common:save')}
          </Button>
        </div>
      </Form>

      {(preview || previewError) && (
        <Card
          size="small"
          className="rules-preview"
          title={t('configSpider:previewTitle')}
          data-testid="rules-preview-result"
        >
          {previewError ? (
            <Alert type="error" showIcon message={t('configSpider:previewFailed')} description={previewError} />
          ) : preview && preview.rows.length ? (
            <>
              <Typography.Paragraph type="secondary">
                {t('configSpider:previewSummary', { rows: preview.rows.length, requests: preview.stats.requests ?? 0 })}
              </Typography.Paragraph>
              <Table
                size="small"
                rowKey={(_, i) => String(i)}
                dataSource={preview.rows}
                columns={previewColumns}
                pagination={false}
                scroll={{ x: true }}
                data-testid="rules-preview-table"
              />
            </>
          ) : (
            <Empty description={t('configSpider:previewEmpty')} />
          )}
          {preview && preview.log.length > 0 && (
            <Collapse
              ghost
              size="small"
              expandIcon={({ isActive }) => <CaretRightOutlined rotate={isActive ? 90 : 0} />}
              items={[
                {
                  key: 'log',
                  label: t('configSpider:previewLog'),
                  children: <pre className="rules-preview-log">{preview.log.join('\n')}</pre>,
                },
              ]}
            />
          )}
        </Card>
      )}
    </div>
  );
}
