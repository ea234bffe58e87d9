/** pg-copy-streams ships no types: `to` is a query node-postgres submits, read as a stream of the COPY's bytes. */
declare module 'pg-copy-streams' {
  import type { Readable } from 'node:stream';
  import type { Submittable } from 'pg';
  export function to(statement: string): Submittable & Readable;
}
