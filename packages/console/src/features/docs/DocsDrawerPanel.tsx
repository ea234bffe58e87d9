/**
 * Related Documentation drawer: 300 px, a tree of documentation links from GET /docs; the sections of
 * the current route are expanded and marked active; the tree refreshes DOCS_TREE_DELAY_MS after a section change.
 * Links open in a new window and send 'doc_link_click'. Loaded on demand by DocsDrawer.tsx the first time it
 * opens, so the tree and its links stay out of the console's first download.
 */
import { useEffect, useMemo, useState } from 'react';
import { Drawer, Empty, Spin, Tree } from 'antd';
import type { DataNode } from 'antd/es/tree';
import { FileTextOutlined, FolderOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { DOCS_TREE_DELAY_MS, DRAWER_WIDTH } from '@crawldeck/shared/core';
import { get } from '../../api/request.ts';
import { sendEvent } from '../../app/stats.ts';
import { activeKeys, buildDocsTree, docsHref, firstSegment, parseDocsString, type DocNode } from './docsTree.ts';
import { useDocsStore } from './store.ts';
import './docs.css';

export function useDocs(enabled: boolean) {
  return useQuery({
    queryKey: ['docs'],
    queryFn: async () => parseDocsString((await get<{ string: string }>('/docs')).data?.string),
    enabled,
    staleTime: 5 * 60_000,
  });
}

function DocLink({ node }: { node: DocNode }) {
  const { i18n } = useTranslation();
  return (
    <a
      href={docsHref(node.fullUrl, i18n.language)}
      target="_blank"
      rel="noopener noreferrer"
      className={`docs-link docs-level-${node.level}${node.active ? ' active' : ''}`}
      data-doc-url={node.url}
      onClick={(e) => {
        e.stopPropagation();
        void sendEvent('doc_link_click', { url: node.fullUrl, label: node.label });
      }}
    >
      {node.label}
    </a>
  );
}

function toTreeData(nodes: DocNode[]): DataNode[] {
  return nodes.map((n) => ({
    key: n.url,
    title: <DocLink node={n} />,
    icon: n.level === 1 ? <FolderOutlined /> : <FileTextOutlined />,
    isLeaf: n.children.length === 0,
    className: n.active ? 'docs-node-active' : undefined,
    children: n.children.length ? toTreeData(n.children) : undefined,
  }));
}

export default function DocsDrawerPanel() {
  const { t } = useTranslation('docs');
  const location = useLocation();
  const { visible, setVisible } = useDocsStore();
  const docs = useDocs(visible);

  // The section the tree reflects follows the route's first segment DOCS_TREE_DELAY_MS after it changes.
  const segment = firstSegment(location.pathname);
  const [section, setSection] = useState(segment);
  useEffect(() => {
    if (segment === section) return;
    const timer = setTimeout(() => setSection(segment), DOCS_TREE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [segment, section]);

  const tree = useMemo(() => buildDocsTree(docs.data ?? {}, `/${section}`), [docs.data, section]);
  const [expanded, setExpanded] = useState<string[]>([]);
  useEffect(() => setExpanded(activeKeys(tree)), [tree]);

  // Debug/test opener while the entry point is disabled: any layout URL with ?docs=1.
  const debug = new URLSearchParams(location.search).get('docs') === '1';
  useEffect(() => {
    if (debug) setVisible(true);
  }, [debug, setVisible]);

  return (
    <Drawer
      open={visible}
      onClose={() => setVisible(false)}
      width={DRAWER_WIDTH}
      title={t('title')}
      rootClassName="docs-drawer"
    >
      <div className="docs-tree" data-section={section}>
        {docs.isLoading ? (
          <Spin />
        ) : tree.length === 0 ? (
          <Empty description={t('empty')} />
        ) : (
          <Tree
            showIcon
            blockNode
            selectable={false}
            treeData={toTreeData(tree)}
            expandedKeys={expanded}
            onExpand={(keys) => setExpanded(keys as string[])}
          />
        )}
      </div>
    </Drawer>
  );
}
