/**
 * The folder of a task's workspace its process starts in: the spider's source folder (a project in a sub-folder of
 * its files), where its environment's requirements.txt or package.json are read too. The master checks the folder
 * when the spider is saved; the node checks it again against the files it copied, since the assignment is all it
 * trusts: no absolute path, no `..`, and every step a real folder (a link is refused, never followed).
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { normaliseSourceFolder, sourceFolderProblem } from '@crawldeck/shared';

/** The source folder `src` inside `workspace` as an absolute path; throws with the reason a task shows. */
export function sourceFolderIn(workspace: string, src: string | undefined): string {
  if (!src) return workspace;
  const problem = sourceFolderProblem(src);
  if (problem) throw new Error(problem);
  const rel = normaliseSourceFolder(src);
  let dir = workspace;
  for (const part of rel.split('/').filter(Boolean)) {
    dir = path.join(dir, part);
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      throw new Error(`source folder "${rel}" is not in the spider's files`);
    }
    if (st.isSymbolicLink()) throw new Error(`source folder "${rel}" goes through a link; only real folders are used`);
    if (!st.isDirectory()) throw new Error(`source folder "${rel}" is not a folder`);
  }
  return dir;
}
