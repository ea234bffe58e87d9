/** Ids of the master's records: 24 hexadecimal characters. */
export const ID = /^[0-9a-f]{24}$/;

/** A task id as given on the command line, refused in words before it is sent when it cannot be one. */
export function taskId(ref: string): string {
  if (!ID.test(ref))
    throw new Error(`"${ref}" is not a task id (24 hexadecimal characters, as \`crawldeck tasks\` lists them)`);
  return ref;
}
