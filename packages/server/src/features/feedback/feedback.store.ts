import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../store/schema.ts';
import { pageWithTotal } from '../../store/query-helpers.ts';

export type FeedbackRow = Selectable<DB['feedback']>;

export async function insertFeedback(db: Kysely<DB>, row: FeedbackRow): Promise<void> {
  await db.insertInto('feedback').values(row).execute();
}

/** One page of the feedback, newest first, with the sender's username (null once the user is deleted). */
export function listFeedbackPage(db: Kysely<DB>, page: { limit: number; offset: number }) {
  const query = db
    .selectFrom('feedback')
    .leftJoin('users', 'users.id', 'feedback.user_id')
    .select([
      'feedback.id',
      'feedback.user_id',
      'users.username',
      'feedback.email',
      'feedback.chat_account',
      'feedback.content',
      'feedback.create_ts',
    ])
    .orderBy('feedback.create_ts', 'desc')
    .orderBy('feedback.id', 'desc');
  return pageWithTotal(query, page);
}
