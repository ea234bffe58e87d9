import { Type, type Static } from '@sinclair/typebox';
import { Str } from './bounds.ts';
import { IsoTime } from './responses.ts';
import { ENV_NAME_PATTERN } from './spiders.ts';

/** Global variables: reach every spider process as environment variables. */
export const VariableBody = Type.Object({
  /** Present: update that variable; absent: create. */
  _id: Type.Optional(Str(24)),
  key: Str(255, { minLength: 1 }),
  value: Str(65536),
  remark: Type.Optional(Str(1000)),
});
export type VariableBody = Static<typeof VariableBody>;

export { ENV_NAME_PATTERN as VARIABLE_KEY_PATTERN };

export const Variable = Type.Object({
  _id: Type.String(),
  key: Type.String(),
  value: Type.String(),
  remark: Type.String(),
  create_ts: IsoTime,
  update_ts: IsoTime,
});
export type Variable = Static<typeof Variable>;
