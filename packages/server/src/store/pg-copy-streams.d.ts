/**
 * pg-copy-streams ships no types: `to` is a query node-postgres submits, read as a stream of the COPY's bytes; `from`
 * one written to with the bytes of `COPY … FROM STDIN`, finished once PostgreSQL has taken them all.
 */
declare module 'pg-copy-streams' {
  import type { Readable, Writable } from 'node:stream';
  import type { Submittable } from 'pg';
  export function to(statement: string): Submittable & Readable;
  export function from(statement: string): Submittable & Writable & { rowCount: number };
}
