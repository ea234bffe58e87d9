import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMaster, type TestMaster } from './harness.ts';
import { makeSpider, runSpider, waitFor, waitNodes, waitTask } from './tasks.helpers.ts';

let m: TestMaster;

beforeAll(async () => {
  m = await startTestMaster({ embeddedNode: true });
  await waitNodes(m, 1);
});
afterAll(async () => {
  await m?.close();
});

const FINAL = ['finished', 'error', 'cancelled', 'abnormal'];
const FAIL = { 'fail.sh': 'echo "failing on purpose"\nexit 3\n' };
const ms = (iso: string | null) => (iso ? Date.parse(iso) : NaN);

interface Attempt {
  _id: string;
  attempt: number;
  status: string;
  not_before: string | null;
}

const detail = async (id: string) => (await m.api('GET', `/tasks/${id}`)).body.data;

/** Waits until the run started by `firstId` has `count` attempts, every one ended. */
async function waitAttempts(firstId: string, count: number): Promise<Attempt[]> {
  return waitFor(
    `${count} ended attempts of ${firstId}`,
    async () => {
      const attempts = (await detail(firstId)).attempts as Attempt[];
      return attempts.length === count && attempts.every((a) => FINAL.includes(a.status)) ? attempts : undefined;
    },
    90_000,
  );
}

/**
 * Retries are decided one after another in the order the endings were heard: once a failed task that ended
 * later has its retry, every earlier ending was decided. Runs such a task (its run asks for one retry).
 */
async function laterEndingDecided(): Promise<void> {
  const spiderId = await makeSpider(m, `marker-${Date.now()}`, 'sh fail.sh', FAIL, { retry_delay_seconds: 1 });
  const [id] = await runSpider(m, spiderId, { retries: 1 });
  await waitFor('the later failure to have its retry', async () => (await detail(id)).attempts.length === 2, 60_000);
}

describe('automatic retries with backoff', () => {
  it('a failing run with 3 retries makes 4 linked attempts, each waiting twice as long, and stops there', async () => {
    const spiderId = await makeSpider(m, 'always-fails', 'sh fail.sh', FAIL, { retries: 3, retry_delay_seconds: 1 });
    const spider = (await m.api('GET', `/spiders/${spiderId}`)).body.data;
    expect(spider.retry_delay_seconds).toBe(1);
    expect(spider.retry_on).toEqual(['error', 'abnormal']);
    const [firstId] = await runSpider(m, spiderId);
    const attempts = await waitAttempts(firstId, 4);
    await laterEndingDecided();

    const tasks = await Promise.all(attempts.map((a) => detail(a._id)));
    expect(tasks.map((t) => t.attempt)).toEqual([1, 2, 3, 4]);
    expect(tasks.map((t) => t.status)).toEqual(['error', 'error', 'error', 'error']);
    expect(tasks[0].parent_id).toBeNull();
    for (const t of tasks.slice(1)) expect(t.parent_id).toBe(firstId);
    for (const t of tasks) {
      expect(t.attempts_max).toBe(4);
      expect(t.attempts.map((a: Attempt) => a._id)).toEqual(attempts.map((a) => a._id));
    }
    // From the stored times: each retry starts no sooner than its backoff after the previous attempt ended.
    for (let i = 1; i < tasks.length; i++) {
      const delay = 1000 * 2 ** (i - 1);
      expect(ms(tasks[i].not_before)).toBe(ms(tasks[i - 1].finish_ts) + delay);
      expect(ms(tasks[i].start_ts) - ms(tasks[i - 1].finish_ts)).toBeGreaterThanOrEqual(delay);
    }
    // The maximum reached: no fifth attempt, even after a later failure was decided.
    expect((await detail(firstId)).attempts).toHaveLength(4);
    const listed = await m.api('GET', '/tasks', { query: { spider_id: spiderId, page_size: 20 } });
    expect(listed.body.total).toBe(4);
  }, 120_000);

  it('a spider that retries errors only does not retry a run that timed out', async () => {
    const spiderId = await makeSpider(
      m,
      'too-slow',
      'sleep 60',
      {},
      { retries: 2, retry_delay_seconds: 1, retry_on: ['error'], limits: { timeout_seconds: 1 } },
    );
    expect((await m.api('GET', `/spiders/${spiderId}`)).body.data.retry_on).toEqual(['error']);
    const [id] = await runSpider(m, spiderId);
    const t = await waitTask(m, id, FINAL, 60_000);
    expect(t.end_reason).toEqual({ kind: 'timed_out' });
    await laterEndingDecided();
    const after = await detail(id);
    expect(after.attempts.map((a: Attempt) => a._id)).toEqual([id]);
    expect(after.attempts_max).toBe(3);
  }, 120_000);

  it('refuses retry settings out of range and changes nothing', async () => {
    const spiderId = await makeSpider(m, 'bad-retries', 'sh fail.sh', FAIL);
    for (const body of [
      { retries: 6 },
      { retry_delay_seconds: 0 },
      { retry_delay_seconds: 3601 },
      { retry_on: ['error', 'sometimes'] },
      { retry_on: ['error', 'error'] },
    ]) {
      const r = await m.api('POST', `/spiders/${spiderId}`, { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const put = await m.api('PUT', '/tasks', { body: { spider_id: spiderId, retries: 6 } });
    expect(put.status).toBe(400);
    expect(put.body.error).toMatch(/retries/);
    const spider = (await m.api('GET', `/spiders/${spiderId}`)).body.data;
    expect([spider.retries, spider.retry_delay_seconds, spider.retry_on]).toEqual([0, 10, ['error', 'abnormal']]);
    expect((await m.api('GET', '/tasks', { query: { spider_id: spiderId } })).body.total).toBe(0);
  });

  it('a retry waiting for its time survives a master restart and starts no sooner', async () => {
    const spiderId = await makeSpider(m, 'fails-once', 'sh fail.sh', FAIL, { retries: 1, retry_delay_seconds: 4 });
    const [firstId] = await runSpider(m, spiderId);
    const retryId = await waitFor(
      'the retry to be made',
      async () => (await detail(firstId)).attempts[1]?._id as string | undefined,
      60_000,
    );
    const waiting = await detail(retryId);
    expect(waiting.status).toBe('pending');
    expect(waiting.waiting_reason).toBe('retry_backoff');
    expect(waiting.attempt).toBe(2);
    const notBefore = ms(waiting.not_before);
    expect(notBefore).toBe(ms((await detail(firstId)).finish_ts) + 4000);

    await m.restart();
    await waitNodes(m, 1);
    const done = await waitTask(m, retryId, FINAL, 60_000);
    expect(done.status).toBe('error');
    expect(ms(done.start_ts)).toBeGreaterThanOrEqual(notBefore);
    expect(ms(done.not_before)).toBe(notBefore);
  }, 120_000);
});
