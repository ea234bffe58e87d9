import { Type, type Static } from '@sinclair/typebox';
import { Int, Str } from './bounds.ts';
import { PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH } from './constants.ts';
import { IsoTime } from './responses.ts';

/** Request and response shapes of the session and general calls: sign-in, own account, sign-up, settings, release. */
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

/** A user as the API shows it (never the password hash). */
export const UserInfo = Type.Object({
  _id: Type.String(),
  username: Type.String(),
  role: Type.Union([Type.Literal('normal'), Type.Literal('admin')]),
  email: Type.String(),
  setting: Type.Object({ max_error_log: Type.Number() }, { additionalProperties: true }),
  create_ts: IsoTime,
});
export type UserInfo = Static<typeof UserInfo>;

export const ActionBody = Type.Object({
  type: Str(100, { minLength: 1 }),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100 })),
});
export type ActionBody = Static<typeof ActionBody>;

const YesNo = Type.Union([Type.Literal('Y'), Type.Literal('N')]);

/** GET /setting: the settings everyone may read, signed in or not. */
export const SystemSetting = Type.Object({
  enable_tutorial: YesNo,
  /** Whether the login screen offers sign-up: 'N' until an administrator opens it. */
  allow_signup: YesNo,
});
export type SystemSetting = Static<typeof SystemSetting>;

/** The newest published release, for the upgrade hint and the release dialog. */
export const LatestRelease = Type.Object({
  name: Type.String(),
  /** Release note (markdown). */
  body: Type.String(),
});
export type LatestRelease = Static<typeof LatestRelease>;

/**
 * GET /releases/latest: `configured: false` when the master has no release source (nothing to show, not an
 * error); otherwise the release.
 */
export const LatestReleaseAnswer = Type.Object({
  configured: Type.Boolean(),
  name: Type.Optional(Type.String()),
  body: Type.Optional(Type.String()),
});
export type LatestReleaseAnswer = Static<typeof LatestReleaseAnswer>;

/** GET /docs: the documentation map as JSON text (path → {title, url}). */
export const DocsIndex = Type.Object({ string: Type.String() });

/** GET /actions/summary rows: how often each action happened and by how many users. */
export const ActionSummaryRow = Type.Object({ type: Type.String(), count: Type.Number(), users: Type.Number() });
export type ActionSummaryRow = Static<typeof ActionSummaryRow>;

export const ActionSummaryQuery = Type.Object({ days: Type.Optional(Int(1, 365)) });

export const USERNAME_RULE = { maxLength: USERNAME_MAX_LENGTH };
