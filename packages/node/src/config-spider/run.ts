import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formatProblems, parseSpiderfile } from '@crawldeck/shared';
import { crawl } from './engine.ts';

/**
 * `crawldeck-config-spider [Spiderfile]`: runs a configurable spider as an ordinary task process. Items are
 * appended as JSON lines to $CRAWLDECK_ITEMS (the node's item spool; stdout when unset), progress goes to stdout.
 * Exit code 0 when the crawl ran (even with some failed pages), 1 when the Spiderfile is invalid or the crawl
 * could not start, 2 when nothing was scraped and requests failed.
 */
async function main(): Promise<number> {
  const file = path.resolve(process.argv[2] || 'Spiderfile');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    console.error(`cannot read ${file}: ${(err as Error).message}`);
    return 1;
  }
  const parsed = parseSpiderfile(text);
  if (!parsed.ok) {
    console.error(`invalid Spiderfile: ${formatProblems(parsed.problems)}`);
    return 1;
  }
  const itemsFile = process.env.CRAWLDECK_ITEMS;
  const sf = parsed.spiderfile;
  console.log(`config spider "${sf.name}": start ${sf.start_url} (stage ${sf.start_stage})`);
  const ac = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => ac.abort());
  const stats = await crawl(sf, {
    signal: ac.signal,
    log: (line) => console.log(line),
    onItem(row) {
      const line = JSON.stringify(row) + '\n';
      if (itemsFile) appendFileSync(itemsFile, line);
      else process.stdout.write(line);
    },
  });
  console.log(
    `done: ${stats.items} items, ${stats.requests} requests, ${stats.errors} errors, ${stats.skippedByRobots} skipped by robots.txt${stats.stoppedBy ? `, stopped: ${stats.stoppedBy}` : ''}`,
  );
  if (stats.stoppedBy === 'aborted') return 143;
  return stats.items === 0 && stats.errors > 0 ? 2 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`config spider failed: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
