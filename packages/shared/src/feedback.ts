import { Type, type Static } from '@sinclair/typebox';
import { Str } from './bounds.ts';
import { IsoTime, Nullable } from './responses.ts';

/** Feedback page: e-mail, chat-app account and content are all required. */
export const FeedbackBody = Type.Object({
  email: Str(320),
  chat_account: Str(200),
  content: Str(10000),
});
export type FeedbackBody = Static<typeof FeedbackBody>;

export const Feedback = Type.Object({
  _id: Type.String(),
  user_id: Nullable(Type.String()),
  username: Nullable(Type.String()),
  email: Type.String(),
  chat_account: Type.String(),
  content: Type.String(),
  create_ts: IsoTime,
});
export type Feedback = Static<typeof Feedback>;
