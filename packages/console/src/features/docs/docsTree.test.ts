import { describe, expect, it } from 'vitest';
import { docsIndex } from '../../../../server/src/features/system/docs-index.ts';
import {
  activeKeys,
  buildDocsTree,
  docsHref,
  firstSegment,
  parseDocsString,
  ROUTE_TOPICS,
  type DocEntry,
} from './docsTree.ts';

const sample: Record<string, DocEntry> = {
  '/spider/': { title: 'Spider', url: 'https://docs.example/spider/' },
  '/spider/index.html': { title: 'Overview', url: 'https://docs.example/spider/index.html' },
  '/task/': { title: 'Task', url: 'https://docs.example/task/' },
  '/spider/upload.html': { title: 'Upload', url: 'https://docs.example/spider/upload.html' },
  '/task/log.html': { title: 'Logs', url: 'https://docs.example/task/log.html' },
  '/orphan/page.html': { title: 'Orphan', url: 'https://docs.example/orphan/page.html' },
  '/spider/image.png': { title: 'Not a page', url: 'x' },
};

describe('buildDocsTree', () => {
  it('makes level-1 groups from paths ending in / and level-2 children from .html paths of their first segment', () => {
    const tree = buildDocsTree(sample, '/home');
    expect(tree.map((n) => [n.label, n.level, n.url, n.fullUrl])).toEqual([
      ['Spider', 1, '/spider/', 'https://docs.example/spider/'],
      ['Task', 1, '/task/', 'https://docs.example/task/'],
    ]);
    expect(tree[0].children.map((c) => [c.label, c.level, c.url, c.fullUrl, c.children.length])).toEqual([
      ['Overview', 2, '/spider/index.html', 'https://docs.example/spider/index.html', 0],
      ['Upload', 2, '/spider/upload.html', 'https://docs.example/spider/upload.html', 0],
    ]);
    expect(tree[1].children.map((c) => c.label)).toEqual(['Logs']);
  });

  it('drops pages of unknown sections and non-html files', () => {
    const labels = buildDocsTree(sample, '/').flatMap((n) => [n.label, ...n.children.map((c) => c.label)]);
    expect(labels).not.toContain('Orphan');
    expect(labels).not.toContain('Not a page');
  });

  it('marks nothing active off the mapped sections', () => {
    expect(activeKeys(buildDocsTree(sample, '/home'))).toEqual([]);
    expect(activeKeys(buildDocsTree(sample, '/'))).toEqual([]);
  });

  it('marks the parent matching the first route segment active (detail routes too)', () => {
    expect(activeKeys(buildDocsTree(sample, '/spiders'))).toEqual(['/spider/']);
    expect(activeKeys(buildDocsTree(sample, '/spiders/65a1b2c3d4e5f60718293a4b?tab=files'))).toEqual(['/spider/']);
    expect(activeKeys(buildDocsTree(sample, '/tasks/abc'))).toEqual(['/task/']);
    expect(buildDocsTree(sample, '/tasks').every((n) => n.children.every((c) => !c.active))).toBe(true);
  });

  it('maps every route of the console to the sections of the server docs index', () => {
    const tree = (p: string) => buildDocsTree(docsIndex('https://docs.example'), p);
    const active = (p: string) =>
      tree(p)
        .filter((n) => n.active)
        .map((n) => n.label);
    expect(active('/projects')).toEqual(['Project']);
    expect(active('/spiders')).toEqual(['Spider', 'SDK', 'Integration', 'CI-Git']);
    expect(active('/tasks')).toEqual(['Task']);
    expect(active('/schedules')).toEqual(['Schedule']);
    expect(active('/nodes/1')).toEqual(['Node']);
    expect(active('/setting')).toEqual(['Notification']);
    expect(active('/users')).toEqual([]);
    // every topic of the mapping exists as a section title on the server
    const titles = tree('/').map((n) => n.label);
    for (const topic of Object.values(ROUTE_TOPICS).flat()) expect(titles).toContain(topic);
    // and every server section has at least one page
    for (const n of tree('/')) expect(n.children.length).toBeGreaterThan(0);
  });

  it('parses data.string defensively', () => {
    expect(parseDocsString(JSON.stringify(sample))['/task/']).toEqual({
      title: 'Task',
      url: 'https://docs.example/task/',
    });
    expect(parseDocsString('not json')).toEqual({});
    expect(parseDocsString('[1,2]')).toEqual({});
    expect(parseDocsString(undefined)).toEqual({});
    expect(parseDocsString(JSON.stringify({ '/a/': { nope: 1 } }))).toEqual({});
  });

  it('firstSegment', () => {
    expect(firstSegment('/spiders/1')).toBe('spiders');
    expect(firstSegment('/setting?tab=general')).toBe('setting');
    expect(firstSegment('/')).toBe('');
  });
});

describe('docsHref', () => {
  it('adds the console language to a guide link, keeping an existing query and anchor', () => {
    expect(docsHref('/docs/node/multi-node.html', 'zh')).toBe('/docs/node/multi-node.html?lang=zh');
    expect(docsHref('https://docs.example/x.html?v=2#top', 'en')).toBe('https://docs.example/x.html?v=2&lang=en#top');
    expect(docsHref('', 'en')).toBe('');
  });
});
