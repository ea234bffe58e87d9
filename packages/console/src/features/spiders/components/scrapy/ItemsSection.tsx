/** The project's items.py as a tree: item classes on the first level, their fields on the second. */
import { useEffect, useRef, useState } from 'react';
import { App, Button, Empty, Spin, Tag, Tooltip, Tree, Typography } from 'antd';
import type { TreeDataNode } from 'antd';
import { PlusOutlined, SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ScrapyItem } from '@crawldeck/shared';
import { useScrapySection } from '../../toolsApi.ts';
import type { Spider } from '../../types.ts';
import { IDENT, SectionError, SectionToolbar, useSectionError, useSectionSave } from './scrapySection.tsx';
import { ItemNameEditor, TreeNodeActions } from './ItemTreeParts.tsx';
import { useItemEditing } from './useItemEditing.ts';

export default function ItemsSection({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const query = useScrapySection(id, 'items');
  const [error, setError] = useSectionError(query);
  const [items, setItems] = useState<ScrapyItem[]>([]);
  const [dirty, setDirty] = useState(false);
  const { saving, persist } = useSectionSave(id, 'items', setError, t('items.saved'));
  const [expanded, setExpanded] = useState<string[]>([]);
  const expandedInit = useRef(false);

  const change = (fn: (xs: ScrapyItem[]) => ScrapyItem[]) => {
    setItems((xs) => fn(xs.map((x) => ({ name: x.name, fields: [...x.fields] }))));
    setDirty(true);
  };
  const { editing, setEditing, commit, cancelEdit, addItem, addField } = useItemEditing(items, change, setExpanded);

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
  }, [query.data, setEditing]);

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
    <ItemNameEditor
      value={editing?.value ?? ''}
      onChange={(value) => setEditing((x) => (x ? { ...x, value } : x))}
      onCommit={commit}
      onCancel={cancelEdit}
    />
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
          <TreeNodeActions
            onEdit={() => setEditing({ item: i, value: it.name })}
            onDelete={() => change((xs) => xs.filter((_, k) => k !== i))}
          >
            <Tooltip title={t('items.addField')}>
              <Button
                type="text"
                size="small"
                icon={<PlusOutlined />}
                onClick={() => addField(i)}
                aria-label={t('items.addField')}
                data-testid="item-add-field"
              />
            </Tooltip>
          </TreeNodeActions>
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
            <TreeNodeActions
              onEdit={() => setEditing({ item: i, field: j, value: f })}
              onDelete={() => change((xs) => ((xs[i].fields = xs[i].fields.filter((_, k) => k !== j)), xs))}
            />
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
