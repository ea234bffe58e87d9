/**
 * What a spider's requirements.txt may ask of pip. Packages come from the index the administrator set, so the file
 * may name requirements (with versions, extras, markers and `--hash`), local paths and other requirement files of
 * the spider; it may not change where pip looks or what it trusts: global options (`--index-url`, `-i`,
 * `--extra-index-url`, `--trusted-host`, `--find-links`, `--no-index`, …), editable or direct URLs (`-e git+…`,
 * `name @ https://…`, `file:` links) are refused, with the line that asked for them.
 */
import path from 'node:path';
import { readNoFollow } from '../no-follow.ts';

/** Options pip takes after a requirement on its own line. */
const PER_REQUIREMENT = /^--hash[=\s]/;
const NESTED = /^(?:-r|--requirement|-c|--constraint)(?:[=\s]+|(?=[^-\s]))(.+)$/;
const EDITABLE = /^(?:-e|--editable)(?:[=\s]+|(?=[^-\s]))(.+)$/;
/** A URL or VCS link: `https://`, `git+ssh://`, `file:`, `hg+…`. */
const URL_LIKE = /(?:^|[\s@])(?:[a-z][a-z0-9+.-]*:\/\/|file:|(?:git|hg|svn|bzr)\+)/i;
const MAX_DEPTH = 5;

export class RequirementsRefused extends Error {}

/** Logical lines: comments dropped, `\` continuations joined, each with its first line number. */
function logicalLines(text: string): { no: number; text: string }[] {
  const out: { no: number; text: string }[] = [];
  let pending = '';
  let start = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!pending) start = i + 1;
    const line = raw.replace(/(^|\s)#.*$/, '');
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      return;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full) out.push({ no: start, text: full });
  });
  if (pending.trim()) out.push({ no: start, text: pending.trim() });
  return out;
}

/**
 * Throws RequirementsRefused naming the first line of `file` (or of a requirement file it includes, within
 * `workspace`) that would change where pip installs from.
 */
export function checkRequirements(workspace: string, file = 'requirements.txt', depth = 0): void {
  const where = (no: number) => `${file} line ${no}`;
  const refuse = (no: number, what: string) =>
    new RequirementsRefused(
      `${where(no)}: ${what} is not allowed; packages come from the index the administrator set for the nodes`,
    );
  let text: string;
  try {
    text = readNoFollow(path.join(workspace, file));
  } catch (err) {
    throw new RequirementsRefused(`${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  for (const { no, text: line } of logicalLines(text)) {
    const nested = NESTED.exec(line);
    if (nested) {
      const target = nested[1].trim();
      const rel = path.normalize(path.join(path.dirname(file), target));
      if (URL_LIKE.test(target) || path.isAbsolute(target) || rel.startsWith('..'))
        throw refuse(no, `including "${target}" (only files of the spider)`);
      if (depth >= MAX_DEPTH) throw refuse(no, 'including requirement files this deep');
      checkRequirements(workspace, rel, depth + 1);
      continue;
    }
    const editable = EDITABLE.exec(line);
    if (editable) {
      if (URL_LIKE.test(editable[1])) throw refuse(no, `an editable install from a link ("${editable[1].trim()}")`);
      continue;
    }
    if (line.startsWith('-')) throw refuse(no, `the option "${line.split(/[\s=]/)[0]}"`);
    const [spec, ...options] = line.split(/\s+(?=--)/);
    for (const o of options) if (!PER_REQUIREMENT.test(o)) throw refuse(no, `the option "${o.split(/[\s=]/)[0]}"`);
    if (URL_LIKE.test(spec)) throw refuse(no, `a direct link ("${spec}")`);
  }
}
