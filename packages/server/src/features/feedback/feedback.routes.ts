import { Feedback, FeedbackBody, UserListQuery, isValidEmail, newId, okResponse } from '@crawldeck/shared';
import { Type } from '@sinclair/typebox';
import type { Feature } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';
import { insertFeedback, listFeedbackPage } from './feedback.store.ts';

/** Feedback page: every signed-in user may send; admins read the list. */
export const feedbackFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  app.put(
    '/api/feedback',
    {
      config: { access: 'user' },
      schema: { body: FeedbackBody, response: okResponse(Type.Object({ _id: Type.String() })) },
    },
    async (req) => {
      const email = req.body.email.trim();
      const chat = req.body.chat_account.trim();
      const content = req.body.content.trim();
      if (!email) throw badRequest('e-mail is required');
      if (!isValidEmail(email)) throw badRequest('e-mail format is invalid');
      if (!chat) throw badRequest('chat-app account is required');
      if (!content) throw badRequest('content is required');
      const now = Date.now();
      const row = { id: newId(now), user_id: req.user.id, email, chat_account: chat, content, create_ts: now };
      await insertFeedback(db, row);
      return ok({ _id: row.id });
    },
  );

  app.get(
    '/api/feedback',
    { config: { access: 'admin' }, schema: { querystring: UserListQuery, response: okResponse(Type.Array(Feedback)) } },
    async (req) => {
      const { rows, total } = await listFeedbackPage(db, paging(req.query));
      const data: Feedback[] = rows.map((r) => ({
        _id: r.id,
        user_id: r.user_id,
        username: r.username ?? null,
        email: r.email,
        chat_account: r.chat_account,
        content: r.content,
        create_ts: iso(r.create_ts),
      }));
      return ok(data, total);
    },
  );
};
