/** The folders of the Files tab that are loaded (the root and every expanded one) as a tree for antd's Tree. */
import { useMemo } from 'react';
import type { TreeDataNode } from 'antd';
import { useDirs } from '../../api.ts';
import type { FileEntry } from '../../types.ts';

export function useFileTree(id: string, expanded: string[]) {
  const dirPaths = useMemo(() => ['', ...expanded], [expanded]);
  const dirs = useDirs(id, dirPaths);
  const listing = useMemo(() => {
    const m = new Map<string, FileEntry[]>();
    dirPaths.forEach((p, i) => {
      const d = dirs[i]?.data;
      if (d) m.set(p, d);
    });
    return m;
  }, [dirPaths, dirs]);
  const entries = useMemo(() => {
    const m = new Map<string, FileEntry>();
    for (const list of listing.values()) for (const e of list) m.set(e.path, e);
    return m;
  }, [listing]);
  const rootQuery = dirs[0];

  const treeData = useMemo(() => {
    const build = (dir: string): TreeDataNode[] =>
      (listing.get(dir) ?? []).map((e) => ({
        key: e.path,
        title: e.name,
        isLeaf: !e.is_dir,
        children: e.is_dir && listing.has(e.path) ? build(e.path) : undefined,
      }));
    return build('');
  }, [listing]);

  return { dirs, entries, rootQuery, treeData };
}
