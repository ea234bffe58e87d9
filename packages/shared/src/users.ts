import { Type, type Static } from '@sinclair/typebox';
import { Str } from './bounds.ts';
import { pageFields } from './paging.ts';
import { MAX_PAGE_SIZE, PASSWORD_MIN_LENGTH } from './constants.ts';

/** Users administration: administrators only, enforced by the master. */
export const RoleSchema = Type.Union([Type.Literal('normal'), Type.Literal('admin')]);

export const UserListQuery = Type.Object({
  ...pageFields(MAX_PAGE_SIZE),
});
export type UserListQuery = Static<typeof UserListQuery>;

export const AddUserBody = Type.Object({
  username: Str(1000),
  password: Str(1000),
  role: Type.Optional(RoleSchema),
  email: Type.Optional(Str(320)),
});
export type AddUserBody = Static<typeof AddUserBody>;

export const UpdateUserBody = Type.Object({
  role: Type.Optional(RoleSchema),
  /** A reset ends every session of that user. */
  password: Type.Optional(Str(1000, { minLength: PASSWORD_MIN_LENGTH })),
  /** With `password`: also revoke that user's API tokens. */
  revoke_tokens: Type.Optional(Type.Boolean()),
  email: Type.Optional(Str(320)),
});
export type UpdateUserBody = Static<typeof UpdateUserBody>;

/** Messages of the refusals, shared so the console can show the same text. */
export const USER_ERRORS = {
  deleteSelf: 'you cannot delete your own account',
  lastAdmin: 'the last administrator cannot be deleted or demoted',
} as const;
