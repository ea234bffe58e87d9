/** The Files tab's model: the open document, the dialog shown, path helpers and the editor's language label. */
import type { FileEntry } from '../../types.ts';

/** The file open in the editor: its saved text and the edited draft (or why it cannot be edited). */
export interface Doc {
  path: string;
  kind: 'text' | 'binary' | 'error';
  original: string;
  draft: string;
  message?: string;
}

export type Dialog =
  | { kind: 'newFile' | 'newDir'; dir: string }
  | { kind: 'rename'; entry: Pick<FileEntry, 'path' | 'is_dir' | 'name'> }
  | { kind: 'upload' }
  | null;

export const dirname = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
export const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);
export const within = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);

const LANGUAGE_LABELS: Record<string, string> = {
  py: 'Python',
  js: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  jsx: 'JavaScript (JSX)',
  ts: 'TypeScript',
  tsx: 'TypeScript (TSX)',
  json: 'JSON',
  yaml: 'YAML',
  yml: 'YAML',
  md: 'Markdown',
  html: 'HTML',
  htm: 'HTML',
  css: 'CSS',
};
export const languageOf = (p: string) => LANGUAGE_LABELS[p.split('.').pop()?.toLowerCase() ?? ''] ?? '';
