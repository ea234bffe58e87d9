import { FeedbackBody, UserListQuery, isValidEmail, newId, type Feedback } from '@crawldeck/shared';
import type { Feature } from '../../context.ts';
import { iso, ok, paging } from '../../http/envelope.ts';
import { badRequest } from '../../http/errors.ts';

/** Feedback page (spec §1, §5): every signed-in user may send; admins read the list. */
export const feedbackFeature: Feature = (app, ctx) => {
  const { db } = ctx.store;

  app.put('/api/feedback', { config: { access: 'user' }, schema: { body: FeedbackBody } }, async (req) => {
    const email = req.body.email.trim();
    const chat = req.body.chat_account.trim();
    const content = req.body.content.trim();
    if (!email) throw badRequest('e-mail is required');
    if (!isValidEmail(email)) throw badRequest('e-mail format is invalid');
    if (!chat) throw badRequest('chat-app account is required');
    if (!content) throw badRequest('content is required');
    const now = Date.now();
    const row = { id: newId(now), user_id: req.user.id, email, chat_account: chat, content, create_ts: now };
    await db.insertInto('feedback').values(row).execute();
    return ok({ _id: row.id });
  });

  app.get('/api/feedback', { config: { access: 'admin' }, schema: { querystring: UserListQuery } }, async (req) => {
    const { limit, offset } = paging(req.query);
    const [rows, count] = await Promise.all([
      db
        .selectFrom('feedback')
        .leftJoin('users', 'users.id', 'feedback.user_id')
        .select(['feedback.id', 'feedback.user_id', 'users.username', 'feedback.email', 'feedback.chat_account', 'feedback.content', 'feedback.create_ts'])
        .orderBy('feedback.create_ts', 'desc')
        .orderBy('feedback.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      db.selectFrom('feedback').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const data: Feedback[] = rows.map((r) => ({
      _id: r.id,
      user_id: r.user_id,
      username: r.username ?? null,
      email: r.email,
      chat_account: r.chat_account,
      content: r.content,
      create_ts: iso(r.create_ts),
    }));
    return ok(data, Number(count.n));
  });
};
