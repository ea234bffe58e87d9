import { Type, type Static } from '@sinclair/typebox';
import { Str } from './bounds.ts';

/** Feedback page (spec §1, §5): e-mail, chat-app account and content are all required. */
export const FeedbackBody = Type.Object({
  email: Str(320),
  chat_account: Str(200),
  content: Str(10000),
});
export type FeedbackBody = Static<typeof FeedbackBody>;

export interface Feedback {
  _id: string;
  user_id: string | null;
  username: string | null;
  email: string;
  chat_account: string;
  content: string;
  create_ts: string | null;
}
