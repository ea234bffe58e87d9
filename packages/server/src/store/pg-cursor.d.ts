/** pg-cursor ships no types; Kysely describes the constructor it expects of it. */
declare module 'pg-cursor' {
  import type { PostgresCursorConstructor } from 'kysely';
  const Cursor: PostgresCursorConstructor;
  export default Cursor;
}
