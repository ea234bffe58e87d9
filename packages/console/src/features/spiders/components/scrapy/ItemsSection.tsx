/** The project's items.py as a tree: item classes on the first level, their fields on the second. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { App, Button, Empty, Input, Space, Spin, Tag, Tooltip, Tree, Typography } from 'antd';
import type { TreeDataNode } from 'antd';
import {
  CheckOutlined,
  CloseOutlined,
  DeleteOutlined,
  EditOutlined,
  PlusOutlined,
  SaveOutlined,
} from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ScrapyItem } from '@crawldeck/shared';
import { useScrapySection } from '../../toolsApi.ts';
import type { Spider } from '../../types.ts';
import { IDENT, SectionError, SectionToolbar, useSectionError, useSectionSave } from './scrapySection.tsx';

type Editing = { item: number; field?: number; value: string } | null;

export default function ItemsSection({ spider }: { spider: Spider }) {
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
