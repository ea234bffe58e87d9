/**
 * A spider's source folder: the folder of its files the task runs in, where `scrapy.cfg`, `requirements.txt` and
 * `package.json` are looked for (a project in a sub-folder of a repository). It is a relative path inside the
 * spider's files; '' is the root. Absolute paths and `..` are refused on both sides: the master when the spider is
 * saved, the node again before it runs a task (it also refuses a folder reached through a link).
 */

/** The folder in its one written form ('' for the root, no leading `./`, no trailing or doubled `/`). */
export function normaliseSourceFolder(src: string): string {
  return src
    .trim()
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/** Why `src` cannot be a source folder, or null when it can (after normaliseSourceFolder). */
export function sourceFolderProblem(src: string): string | null {
  const trimmed = src.trim();
  if (trimmed.startsWith('/') || /^[A-Za-z]:[\\/]/.test(trimmed))
    return `source folder "${trimmed}" must be a folder of the spider's files, not an absolute path`;
  if (trimmed.includes('\\')) return `source folder "${trimmed}" must use "/" between folders`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return 'source folder holds control characters';
  if (trimmed.split('/').includes('..'))
    return `source folder "${trimmed}" must stay inside the spider's files (no "..")`;
  return null;
}

/** The folder holding `file` ('' for the root), as a source folder names it. */
export function folderOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? '' : file.slice(0, i);
}

/** `name` inside the source folder `src`, as a path of the spider's files. */
export function inSourceFolder(src: string, name: string): string {
  return src ? `${src}/${name}` : name;
}
