import { Type, type Static } from '@sinclair/typebox';
import { Str } from './bounds.ts';
import { ENV_NAME_PATTERN } from './spiders.ts';

/** Global variables (spec §7 "Users and variables"): reach every spider process as environment variables. */
export const VariableBody = Type.Object({
  /** Present: update that variable; absent: create. */
  _id: Type.Optional(Str(24)),
  key: Str(255, { minLength: 1 }),
  value: Str(65536),
  remark: Type.Optional(Str(1000)),
});
export type VariableBody = Static<typeof VariableBody>;

export { ENV_NAME_PATTERN as VARIABLE_KEY_PATTERN };

export interface Variable {
  _id: string;
  key: string;
  value: string;
  remark: string;
  create_ts: string | null;
  update_ts: string | null;
}
