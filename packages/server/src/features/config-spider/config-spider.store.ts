import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.ts';

/** The parsed Spiderfile of a configurable spider, kept next to its text for listing and running. */
export async function saveSpiderConfig(db: Kysely<DB>, spiderId: string, configJson: string): Promise<void> {
  await db
    .updateTable('spiders')
    .set({ config: configJson, update_ts: Date.now() })
    .where('id', '=', spiderId)
    .execute();
}

/** A converted spider is a customized Scrapy project from then on, run by `cmd`. */
export async function markConvertedToScrapy(db: Kysely<DB>, spiderId: string, cmd: string): Promise<void> {
  await db
    .updateTable('spiders')
    .set({ type: 'customized', is_scrapy: 1, cmd, update_ts: Date.now() })
    .where('id', '=', spiderId)
    .execute();
}
