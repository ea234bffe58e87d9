import { Type, type Static } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';
import { PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH } from './constants.ts';

/** Request/response shapes of the session and general calls (spec §7 "Session and general"). */
export const LoginBody = Type.Object({
  username: Str(1000),
  password: Str(1000),
});
export type LoginBody = Static<typeof LoginBody>;

export const SignUpBody = Type.Object({
  username: Str(1000),
  password: Str(1000),
  email: Type.Optional(Str(320)),
});
export type SignUpBody = Static<typeof SignUpBody>;

export const UserSetting = Type.Object({
  max_error_log: Type.Optional(Int(1, 100000)),
});
export type UserSetting = Static<typeof UserSetting>;

export const UpdateMeBody = Type.Object({
  password: Type.Optional(Str(1000, { minLength: PASSWORD_MIN_LENGTH })),
  /** Required with `password`: the password being replaced. */
  current_password: Type.Optional(Str(1000)),
  /** With `password`: also revoke this user's API tokens (other sessions always end). */
  revoke_tokens: Type.Optional(Type.Boolean()),
  email: Type.Optional(Str(320)),
  setting: Type.Optional(UserSetting),
});
export type UpdateMeBody = Static<typeof UpdateMeBody>;

export interface UserInfo {
  _id: string;
  username: string;
  role: 'normal' | 'admin';
  email: string;
  setting: { max_error_log: number };
  create_ts: string | null;
}

export const ActionBody = Type.Object({
  type: Str(100, { minLength: 1 }),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100 })),
});
export type ActionBody = Static<typeof ActionBody>;

export interface SystemSetting {
  enable_tutorial: 'Y' | 'N';
  /** Whether the login screen offers sign-up (an administrator may close it). */
  allow_signup: 'Y' | 'N';
}

export interface LatestRelease {
  name: string;
  body: string;
}

export const USERNAME_RULE = { maxLength: USERNAME_MAX_LENGTH };
