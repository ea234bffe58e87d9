/**
 * Scrapy project panel of the spider detail (spec §3 Scrapy settings/items/pipelines, §5 setting types, §7 scrapy
 * calls): the project's spiders (add from a template, jump to a spider's file), the settings table with typed
 * editors and key autocomplete, the items tree (level 1 item classes, level 2 fields) and the pipelines list.
 * Every section keeps its own error (spec §7): shown in the section, cleared by its next success, and a failed
 * save leaves the edited form as it is (the failed result is not applied).
 */
import { useEffect, useMemo, useRef, useState, type HTMLAttributes, type ReactNode } from 'react';
import {
  Alert,
  App,
  AutoComplete,
  Button,
  Card,
  Empty,
  Form,
  Input,
  InputNumber,
  List,
  Select,
  Space,
  Spin,
  Switch,
  Table,
  Tabs,
  Tag,
  Tooltip,
  Tree,
  Typography,
} from 'antd';
import type { TreeDataNode } from 'antd';
import {
  BugOutlined,
  CheckOutlined,
  CloseOutlined,
  DeleteOutlined,
  EditOutlined,
  FileSearchOutlined,
  PlusOutlined,
  ReloadOutlined,
  SaveOutlined,
} from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  SCRAPY_SETTING_NAMES,
  SCRAPY_SETTING_TYPES,
  SCRAPY_SPIDER_TEMPLATES,
  type ScrapyItem,
  type ScrapyPipeline,
  type ScrapySetting,
  type ScrapySettingType,
} from '@crawldeck/shared';
import { spiderKeys } from '../api.ts';
import {
  addScrapySpider,
  errorText,
  saveScrapySection,
  scrapySpiderFilepath,
  toolKeys,
  useScrapySection,
  type ScrapySection,
} from '../toolsApi.ts';
import type { Spider } from '../types.ts';
import ScrapySettingValue, { fromDraft, objectProblem, toDraft, type DraftValue } from './ScrapySettingValue.tsx';
import './tools.css';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SETTING_TYPES: ScrapySettingType[] = ['string', 'number', 'boolean', 'array', 'object'];

/** Per-section error of spec §7: the query's error until its next success, or the last failed save's. */
function useSectionError(query: { error: Error | null; dataUpdatedAt: number; isError: boolean }) {
  const [error, setError] = useState('');
  useEffect(() => {
    if (query.isError && query.error) setError(errorText(query.error));
  }, [query.isError, query.error]);
  useEffect(() => {
    if (query.dataUpdatedAt) setError('');
  }, [query.dataUpdatedAt]);
  return [error, setError] as const;
}

/**
 * Saving an editable section (settings, items, pipelines): on success the answer becomes the section's data, the
 * error is cleared and the files (and `alsoRefresh` sections) reload; on failure the error is kept and the draft
 * stays as edited (spec §7: the result is not applied).
 */
function useSectionSave(
  id: string,
  section: Exclude<ScrapySection, 'spiders'>,
  setError: (e: string) => void,
  successText: string,
  alsoRefresh: ScrapySection[] = [],
) {
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [saving, setSaving] = useState(false);
  const persist = async (body: unknown) => {
    setSaving(true);
    try {
      const saved = await saveScrapySection(id, section, body);
      setError('');
      qc.setQueryData(toolKeys.scrapy(id, section), saved);
      for (const other of alsoRefresh) void qc.invalidateQueries({ queryKey: toolKeys.scrapy(id, other) });
      void qc.invalidateQueries({ queryKey: spiderKeys.files(id) });
      void message.success(successText);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setSaving(false);
    }
  };
  return { saving, persist };
}

function SectionError({ section, error }: { section: ScrapySection; error: string }) {
  const { t } = useTranslation('scrapy');
  if (!error) return null;
  return (
    <Alert
      type="error"
      showIcon
      className="scrapy-section-error"
      message={t(`errors.${section}`)}
      description={<span className="mono-text scrapy-error-text">{error}</span>}
      data-testid={`scrapy-error-${section}`}
    />
  );
}

function SectionToolbar({
  children,
  onReload,
  loading,
}: {
  children?: ReactNode;
  onReload: () => void;
  loading: boolean;
}) {
  const { t } = useTranslation('scrapy');
  return (
    <div className="scrapy-toolbar">
      <Space wrap>{children}</Space>
      <Tooltip title={t('reload')}>
        <Button icon={<ReloadOutlined />} onClick={onReload} loading={loading} aria-label={t('reload')} />
      </Tooltip>
    </div>
  );
}

// ---------- spiders ----------

function SpidersSection({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const query = useScrapySection(id, 'spiders');
  const [error, setError] = useSectionError(query);
  const [form] = Form.useForm<{ name: string; domain: string; template: string }>();
  const [adding, setAdding] = useState(false);
  const [jumping, setJumping] = useState<string | null>(null);

  const jump = async (name: string) => {
    setJumping(name);
    try {
      const path = await scrapySpiderFilepath(id, name);
      setError('');
      navigate(`/spiders/${id}?tab=files&file=${encodeURIComponent(path)}`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setJumping(null);
    }
  };

  const add = async () => {
    let v: { name: string; domain: string; template: string };
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    setAdding(true);
    try {
      const created = await addScrapySpider(id, { name: v.name.trim(), domain: v.domain.trim(), template: v.template });
      setError('');
      form.resetFields();
      void message.success(t('spiders.added', { name: created.name, path: created.filepath }));
      await qc.invalidateQueries({ queryKey: toolKeys.scrapy(id, 'spiders') });
      void qc.invalidateQueries({ queryKey: spiderKeys.files(id) });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setAdding(false);
    }
  };

  return (
    <div className="scrapy-section" data-testid="scrapy-spiders">
      <SectionError section="spiders" error={error} />
      <Form
        form={form}
        layout="inline"
        className="scrapy-add-spider"
        initialValues={{ template: 'basic' }}
        onFinish={() => void add()}
      >
        <Form.Item
          name="name"
          rules={[
            { required: true, message: t('spiders.nameRequired') },
            { pattern: IDENT, message: t('identifier') },
          ]}
        >
          <Input placeholder={t('spiders.name')} className="mono-input" data-testid="scrapy-spider-name" />
        </Form.Item>
        <Form.Item
          name="domain"
          rules={[
            { required: true, message: t('spiders.domainRequired') },
            { pattern: /^[A-Za-z0-9][A-Za-z0-9.:/_-]*$/, message: t('spiders.domainPattern') },
          ]}
        >
          <Input placeholder={t('spiders.domain')} className="mono-input" data-testid="scrapy-spider-domain" />
        </Form.Item>
        <Form.Item name="template">
          <Select
            style={{ width: 120 }}
            options={SCRAPY_SPIDER_TEMPLATES.map((x) => ({ value: x, label: x }))}
            aria-label={t('spiders.template')}
          />
        </Form.Item>
        <Form.Item>
          <Button
            type="primary"
            htmlType="submit"
            icon={<PlusOutlined />}
            loading={adding}
            data-testid="scrapy-spider-add"
          >
            {t('spiders.add')}
          </Button>
        </Form.Item>
      </Form>
      <SectionToolbar onReload={() => void query.refetch()} loading={query.isFetching} />
      <List
        size="small"
        bordered
        loading={query.isLoading}
        dataSource={query.data ?? []}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('spiders.empty')} /> }}
        renderItem={(name) => (
          <List.Item
            data-testid="scrapy-spider-row"
            actions={[
              <Button
                key="file"
                type="link"
                size="small"
                icon={<FileSearchOutlined />}
                loading={jumping === name}
                onClick={() => void jump(name)}
                data-testid="scrapy-jump"
              >
                {t('spiders.jump')}
              </Button>,
            ]}
          >
            <Typography.Text className="mono-text" strong>
              {name}
            </Typography.Text>
            <Typography.Text type="secondary" className="mono-text scrapy-crawl-cmd">
              scrapy crawl {name}
            </Typography.Text>
          </List.Item>
        )}
      />
    </div>
  );
}

// ---------- settings ----------

interface SettingRow {
  uid: number;
  key: string;
  type: ScrapySettingType;
  value: DraftValue;
  expression?: boolean;
}

let uidSeq = 0;
const toRows = (list: ScrapySetting[]): SettingRow[] =>
  list.map((s) => ({
    uid: ++uidSeq,
    key: s.key,
    type: s.type,
    expression: s.expression,
    value: toDraft(s.type, s.value, s.expression),
  }));

function SettingsSection({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const query = useScrapySection(id, 'settings');
  const [error, setError] = useSectionError(query);
  const [rows, setRows] = useState<SettingRow[]>([]);
  const [dirty, setDirty] = useState(false);
  const { saving, persist } = useSectionSave(id, 'settings', setError, t('settings.saved'));
  const [filter, setFilter] = useState('');

  useEffect(() => {
    if (query.data) {
      setRows(toRows(query.data));
      setDirty(false);
    }
  }, [query.data]);

  const patch = (uid: number, p: Partial<SettingRow>) => {
    setRows((rs) => rs.map((r) => (r.uid === uid ? { ...r, ...p } : r)));
    setDirty(true);
  };

  const setKey = (row: SettingRow, key: string) => {
    const known = SCRAPY_SETTING_TYPES[key];
    if (known && known !== row.type && !row.expression)
      patch(row.uid, { key, type: known, value: toDraft(known, fromDraftSafe(row)) });
    else patch(row.uid, { key });
  };

  const setType = (row: SettingRow, type: ScrapySettingType) =>
    patch(row.uid, { type, value: toDraft(type, fromDraftSafe(row)) });

  const problems = useMemo(() => {
    const out = new Map<number, string>();
    const seen = new Set<string>();
    for (const r of rows) {
      const k = r.key.trim();
      if (!k) out.set(r.uid, t('settings.keyRequired'));
      else if (!IDENT.test(k)) out.set(r.uid, t('identifier'));
      else if (seen.has(k)) out.set(r.uid, t('settings.keyTwice', { key: k }));
      else if (!r.expression && r.type === 'object' && objectProblem(r.value)) out.set(r.uid, t('settings.badJson'));
      else if (!r.expression && r.type === 'number' && (r.value === null || r.value === ''))
        out.set(r.uid, t('settings.badNumber'));
      seen.add(k);
    }
    return out;
  }, [rows, t]);

  const save = async () => {
    if (problems.size) {
      void message.error(t('fixRows'));
      return;
    }
    await persist(
      rows.map((r) => ({
        key: r.key.trim(),
        type: r.type,
        value: fromDraft(r.type, r.value, r.expression),
        ...(r.expression ? { expression: true } : {}),
      })),
    );
  };

  const shown = filter ? rows.filter((r) => r.key.toLowerCase().includes(filter.toLowerCase())) : rows;

  return (
    <div className="scrapy-section" data-testid="scrapy-settings">
      <SectionError section="settings" error={error} />
      <SectionToolbar onReload={() => void query.refetch()} loading={query.isFetching}>
        <Input.Search
          allowClear
          placeholder={t('settings.filter')}
          onChange={(e) => setFilter(e.target.value)}
          style={{ width: 220 }}
        />
        <Button
          icon={<PlusOutlined />}
          onClick={() => {
            setRows((rs) => [...rs, { uid: ++uidSeq, key: '', type: 'string', value: '' }]);
            setFilter('');
            setDirty(true);
          }}
          data-testid="scrapy-setting-add"
        >
          {t('settings.add')}
        </Button>
        <Button
          type="primary"
          icon={<SaveOutlined />}
          onClick={() => void save()}
          loading={saving}
          disabled={!query.data && !rows.length}
          data-testid="scrapy-settings-save"
        >
          {t('save')}
        </Button>
        {dirty && <Typography.Text className="scrapy-unsaved">{t('unsaved')}</Typography.Text>}
      </SectionToolbar>
      <Table<SettingRow>
        size="small"
        rowKey="uid"
        className="scrapy-settings-table"
        loading={query.isLoading}
        dataSource={shown}
        pagination={false}
        scroll={{ y: 480 }}
        onRow={(r) => ({ 'data-key': r.key }) as HTMLAttributes<HTMLElement>}
        columns={[
          {
            title: t('settings.key'),
            dataIndex: 'key',
            width: '34%',
            render: (_, r) => (
              <div>
                <AutoComplete
                  className="mono-input"
                  style={{ width: '100%' }}
                  value={r.key}
                  status={problems.has(r.uid) ? 'error' : undefined}
                  options={settingOptions(r.key)}
                  onChange={(k: string) => setKey(r, k)}
                  placeholder="DOWNLOAD_DELAY"
                  data-testid="setting-key"
                />
                {problems.has(r.uid) && (
                  <Typography.Text type="danger" className="scrapy-row-problem">
                    {problems.get(r.uid)}
                  </Typography.Text>
                )}
              </div>
            ),
          },
          {
            title: t('settings.type'),
            dataIndex: 'type',
            width: 130,
            render: (_, r) =>
              r.expression ? (
                <Tooltip title={t('settings.expressionHint')}>
                  <Tag color="gold">{t('settings.expression')}</Tag>
                </Tooltip>
              ) : (
                <Select
                  size="small"
                  style={{ width: '100%' }}
                  value={r.type}
                  onChange={(v) => setType(r, v)}
                  options={SETTING_TYPES.map((x) => ({ value: x, label: t(`types.${x}`) }))}
                  data-testid="setting-type"
                />
              ),
          },
          {
            title: t('settings.value'),
            dataIndex: 'value',
            render: (_, r) => (
              <ScrapySettingValue
                type={r.type}
                value={r.value}
                expression={r.expression}
                onChange={(v) => patch(r.uid, { value: v })}
              />
            ),
          },
          {
            title: '',
            width: 48,
            render: (_, r) => (
              <Button
                type="text"
                danger
                icon={<DeleteOutlined />}
                aria-label={t('remove')}
                onClick={() => {
                  setRows((rs) => rs.filter((x) => x.uid !== r.uid));
                  setDirty(true);
                }}
                data-testid="setting-remove"
              />
            ),
          },
        ]}
      />
    </div>
  );
}

function fromDraftSafe(r: SettingRow): unknown {
  try {
    return fromDraft(r.type, r.value, r.expression);
  } catch {
    return r.value;
  }
}

function settingOptions(input: string) {
  const q = input.trim().toUpperCase();
  const names = q ? SCRAPY_SETTING_NAMES.filter((n) => n.includes(q)) : SCRAPY_SETTING_NAMES;
  return names.slice(0, 60).map((n) => ({
    value: n,
    label: (
      <span className="scrapy-key-option">
        <span className="mono-text">{n}</span>
        <span className="scrapy-key-type">{SCRAPY_SETTING_TYPES[n]}</span>
      </span>
    ),
  }));
}

// ---------- items ----------

type Editing = { item: number; field?: number; value: string } | null;

function ItemsSection({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const query = useScrapySection(id, 'items');
  const [error, setError] = useSectionError(query);
  const [items, setItems] = useState<ScrapyItem[]>([]);
  const [dirty, setDirty] = useState(false);
  const { saving, persist } = useSectionSave(id, 'items', setError, t('items.saved'));
  const [editing, setEditing] = useState<Editing>(null);
  const [expanded, setExpanded] = useState<string[]>([]);
  const expandedInit = useRef(false);

  useEffect(() => {
    if (query.data) {
      setItems(query.data.map((i) => ({ name: i.name, fields: [...i.fields] })));
      setDirty(false);
      setEditing(null);
      if (!expandedInit.current) {
        expandedInit.current = true;
        setExpanded(query.data.map((_, i) => `i${i}`));
      }
    }
  }, [query.data]);

  const change = (fn: (xs: ScrapyItem[]) => ScrapyItem[]) => {
    setItems((xs) => fn(xs.map((x) => ({ name: x.name, fields: [...x.fields] }))));
    setDirty(true);
  };

  const editProblem = (e: NonNullable<Editing>): string => {
    const v = e.value.trim();
    if (!IDENT.test(v)) return t('identifier');
    if (e.field === undefined) {
      if (items.some((x, i) => i !== e.item && x.name === v)) return t('items.itemTwice', { name: v });
    } else if (items[e.item]?.fields.some((f, j) => j !== e.field && f === v))
      return t('items.fieldTwice', { name: v });
    return '';
  };

  const commit = () => {
    if (!editing) return;
    const problem = editProblem(editing);
    if (problem) {
      void message.error(problem);
      return;
    }
    const v = editing.value.trim();
    change((xs) => {
      if (editing.field === undefined) xs[editing.item].name = v;
      else xs[editing.item].fields[editing.field] = v;
      return xs;
    });
    setEditing(null);
  };

  const cancelEdit = () => {
    // a just-added node left empty is dropped again
    if (editing && !editing.value.trim()) {
      const e = editing;
      if (e.field === undefined && !items[e.item]?.name) change((xs) => xs.filter((_, i) => i !== e.item));
      else if (e.field !== undefined && !items[e.item]?.fields[e.field])
        change((xs) => ((xs[e.item].fields = xs[e.item].fields.filter((_, j) => j !== e.field)), xs));
    }
    setEditing(null);
  };

  const addItem = () => {
    const idx = items.length;
    change((xs) => [...xs, { name: '', fields: [] }]);
    setExpanded((ks) => [...ks, `i${idx}`]);
    setEditing({ item: idx, value: '' });
  };

  const addField = (item: number) => {
    const idx = items[item].fields.length;
    change((xs) => ((xs[item].fields = [...xs[item].fields, '']), xs));
    setExpanded((ks) => (ks.includes(`i${item}`) ? ks : [...ks, `i${item}`]));
    setEditing({ item, field: idx, value: '' });
  };

  const save = async () => {
    if (editing) commit();
    const bad = items.find((x) => !IDENT.test(x.name) || x.fields.some((f) => !IDENT.test(f)));
    if (bad) {
      void message.error(t('fixRows'));
      return;
    }
    await persist(items);
  };

  const editor = (
    <Space.Compact size="small" className="scrapy-tree-editor">
      <Input
        autoFocus
        size="small"
        className="mono-input"
        value={editing?.value ?? ''}
        onChange={(e) => setEditing((x) => (x ? { ...x, value: e.target.value } : x))}
        onPressEnter={commit}
        onKeyDown={(e) => e.key === 'Escape' && cancelEdit()}
        onClick={(e) => e.stopPropagation()}
        data-testid="item-name-input"
      />
      <Button
        size="small"
        icon={<CheckOutlined />}
        onClick={(e) => (e.stopPropagation(), commit())}
        aria-label={t('ok')}
        data-testid="item-name-ok"
      />
      <Button
        size="small"
        icon={<CloseOutlined />}
        onClick={(e) => (e.stopPropagation(), cancelEdit())}
        aria-label={t('cancel')}
      />
    </Space.Compact>
  );

  const nodeActions = (onEdit: () => void, onDelete: () => void, extra?: ReactNode) => (
    <span className="scrapy-tree-actions" onClick={(e) => e.stopPropagation()}>
      {extra}
      <Tooltip title={t('items.rename')}>
        <Button
          type="text"
          size="small"
          icon={<EditOutlined />}
          onClick={onEdit}
          aria-label={t('items.rename')}
          data-testid="item-rename"
        />
      </Tooltip>
      <Tooltip title={t('remove')}>
        <Button
          type="text"
          size="small"
          danger
          icon={<DeleteOutlined />}
          onClick={onDelete}
          aria-label={t('remove')}
          data-testid="item-delete"
        />
      </Tooltip>
    </span>
  );

  const treeData: TreeDataNode[] = items.map((it, i) => ({
    key: `i${i}`,
    title:
      editing && editing.item === i && editing.field === undefined ? (
        editor
      ) : (
        <span className="scrapy-tree-node" data-testid="item-node" data-name={it.name}>
          <span className="mono-text scrapy-item-name">{it.name}</span>
          <Tag className="scrapy-item-count">{t('items.fieldCount', { count: it.fields.length })}</Tag>
          {nodeActions(
            () => setEditing({ item: i, value: it.name }),
            () => change((xs) => xs.filter((_, k) => k !== i)),
            <Tooltip title={t('items.addField')}>
              <Button
                type="text"
                size="small"
                icon={<PlusOutlined />}
                onClick={() => addField(i)}
                aria-label={t('items.addField')}
                data-testid="item-add-field"
              />
            </Tooltip>,
          )}
        </span>
      ),
    children: it.fields.map((f, j) => ({
      key: `i${i}f${j}`,
      isLeaf: true,
      title:
        editing && editing.item === i && editing.field === j ? (
          editor
        ) : (
          <span className="scrapy-tree-node" data-testid="field-node" data-name={f}>
            <span className="mono-text">{f}</span>
            <span className="scrapy-field-decl">= scrapy.Field()</span>
            {nodeActions(
              () => setEditing({ item: i, field: j, value: f }),
              () => change((xs) => ((xs[i].fields = xs[i].fields.filter((_, k) => k !== j)), xs)),
            )}
          </span>
        ),
    })),
  }));

  return (
    <div className="scrapy-section" data-testid="scrapy-items">
      <SectionError section="items" error={error} />
      <SectionToolbar onReload={() => void query.refetch()} loading={query.isFetching}>
        <Button icon={<PlusOutlined />} onClick={addItem} data-testid="item-add">
          {t('items.add')}
        </Button>
        <Button
          type="primary"
          icon={<SaveOutlined />}
          onClick={() => void save()}
          loading={saving}
          data-testid="scrapy-items-save"
        >
          {t('save')}
        </Button>
        {dirty && <Typography.Text className="scrapy-unsaved">{t('unsaved')}</Typography.Text>}
      </SectionToolbar>
      <div className="scrapy-tree">
        {query.isLoading ? (
          <Spin />
        ) : items.length ? (
          <Tree
            blockNode
            selectable={false}
            treeData={treeData}
            expandedKeys={expanded}
            onExpand={(k) => setExpanded(k as string[])}
          />
        ) : (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('items.empty')} />
        )}
      </div>
    </div>
  );
}

// ---------- pipelines ----------

interface PipelineRow extends ScrapyPipeline {
  uid: number;
}

function PipelinesSection({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const query = useScrapySection(id, 'pipelines');
  const [error, setError] = useSectionError(query);
  const [rows, setRows] = useState<PipelineRow[]>([]);
  const [dirty, setDirty] = useState(false);
  const { saving, persist } = useSectionSave(id, 'pipelines', setError, t('pipelines.saved'), ['settings']);
  const [newName, setNewName] = useState('');

  useEffect(() => {
    if (query.data) {
      setRows(query.data.map((p) => ({ ...p, uid: ++uidSeq })));
      setDirty(false);
    }
  }, [query.data]);

  const patch = (uid: number, p: Partial<PipelineRow>) => {
    setRows((rs) => rs.map((r) => (r.uid === uid ? { ...r, ...p } : r)));
    setDirty(true);
  };

  const validName = (n: string) => /^[A-Za-z_][A-Za-z0-9_.]*$/.test(n);

  const add = () => {
    const n = newName.trim();
    if (!validName(n)) return void message.error(t('pipelines.badName'));
    if (rows.some((r) => r.name === n)) return void message.error(t('pipelines.twice', { name: n }));
    const max = Math.max(0, ...rows.map((r) => r.priority ?? 0));
    setRows((rs) => [
      ...rs,
      { uid: ++uidSeq, name: n, priority: Math.min(1000, max + 100), enabled: true, defined: false },
    ]);
    setNewName('');
    setDirty(true);
  };

  // Pipelines live in settings.py's ITEM_PIPELINES: the settings section reloads too.
  const save = () => persist(rows.map((r) => ({ name: r.name, priority: r.priority ?? null, enabled: r.enabled })));

  return (
    <div className="scrapy-section" data-testid="scrapy-pipelines">
      <SectionError section="pipelines" error={error} />
      <Typography.Paragraph type="secondary" className="scrapy-hint">
        {t('pipelines.hint')}
      </Typography.Paragraph>
      <SectionToolbar onReload={() => void query.refetch()} loading={query.isFetching}>
        <Space.Compact>
          <Input
            className="mono-input"
            style={{ width: 320 }}
            placeholder="myproject.pipelines.MyPipeline"
            value={newName}
            onChange={(e) => setNewName(e.target.value)}
            onPressEnter={add}
            data-testid="pipeline-name"
          />
          <Button icon={<PlusOutlined />} onClick={add} data-testid="pipeline-add">
            {t('pipelines.add')}
          </Button>
        </Space.Compact>
        <Button
          type="primary"
          icon={<SaveOutlined />}
          onClick={() => void save()}
          loading={saving}
          data-testid="scrapy-pipelines-save"
        >
          {t('save')}
        </Button>
        {dirty && <Typography.Text className="scrapy-unsaved">{t('unsaved')}</Typography.Text>}
      </SectionToolbar>
      <Table<PipelineRow>
        size="small"
        rowKey="uid"
        loading={query.isLoading}
        dataSource={rows}
        pagination={false}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('pipelines.empty')} /> }}
        columns={[
          {
            title: t('pipelines.name'),
            dataIndex: 'name',
            render: (n: string, r) => (
              <Space size={6}>
                <Typography.Text className="mono-text">{n}</Typography.Text>
                {!r.defined && (
                  <Tooltip title={t('pipelines.notDefinedHint')}>
                    <Tag color="orange">{t('pipelines.notDefined')}</Tag>
                  </Tooltip>
                )}
              </Space>
            ),
          },
          {
            title: t('pipelines.priority'),
            dataIndex: 'priority',
            width: 140,
            render: (p: number | null, r) => (
              <InputNumber
                size="small"
                min={0}
                max={1000}
                precision={0}
                value={p}
                onChange={(v) => patch(r.uid, { priority: v === null ? null : Number(v) })}
                disabled={!r.enabled}
              />
            ),
          },
          {
            title: t('pipelines.enabled'),
            dataIndex: 'enabled',
            width: 100,
            render: (e: boolean, r) => (
              <Switch
                size="small"
                checked={e}
                onChange={(v) => patch(r.uid, { enabled: v, priority: v && r.priority === null ? 300 : r.priority })}
                data-testid="pipeline-enabled"
              />
            ),
          },
          {
            title: '',
            width: 48,
            render: (_, r) => (
              <Button
                type="text"
                danger
                icon={<DeleteOutlined />}
                aria-label={t('remove')}
                onClick={() => {
                  setRows((rs) => rs.filter((x) => x.uid !== r.uid));
                  setDirty(true);
                }}
              />
            ),
          },
        ]}
      />
    </div>
  );
}

// ---------- panel ----------

export default function ScrapyPanel({ spider }: { spider: Spider }) {
  const { t } = useTranslation('scrapy');
  const [tab, setTab] = useState<ScrapySection>('spiders');
  // mounted lazily per tab: the spiders list imports the project's code, the others only read files
  const [seen, setSeen] = useState<Set<ScrapySection>>(() => new Set(['spiders']));
  const sections: Array<{ key: ScrapySection; node: ReactNode }> = [
    { key: 'spiders', node: <SpidersSection spider={spider} /> },
    { key: 'settings', node: <SettingsSection spider={spider} /> },
    { key: 'items', node: <ItemsSection spider={spider} /> },
    { key: 'pipelines', node: <PipelinesSection spider={spider} /> },
  ];
  return (
    <Card
      size="small"
      className="scrapy-panel tool-panel"
      data-testid="scrapy-panel"
      title={
        <Space>
          <BugOutlined className="tool-panel-logo" />
          <span>{t('title')}</span>
        </Space>
      }
    >
      <Tabs
        size="small"
        activeKey={tab}
        onChange={(k) => {
          setTab(k as ScrapySection);
          setSeen((s) => new Set([...s, k as ScrapySection]));
        }}
        items={sections.map((s) => ({
          key: s.key,
          label: <span data-testid={`scrapy-tab-${s.key}`}>{t(`tabs.${s.key}`)}</span>,
          children: seen.has(s.key) ? s.node : null,
        }))}
      />
    </Card>
  );
}
