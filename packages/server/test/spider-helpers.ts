import yazl from 'yazl';
import type { TestMaster } from './harness.ts';

/** Zip building and multipart calls for the spider tests. */
export interface ZipEntry {
  name: string;
  content?: string | Buffer;
  dir?: boolean;
  mode?: number;
  compress?: boolean;
}

export function makeZip(entries: ZipEntry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    if (e.dir) zip.addEmptyDirectory(e.name);
    else
      zip.addBuffer(Buffer.isBuffer(e.content) ? e.content : Buffer.from(e.content ?? ''), e.name, {
        mode: e.mode,
        compress: e.compress ?? true,
      });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** yazl refuses evil names, so build with a same-length placeholder and swap the bytes afterwards. */
export async function makeEvilZip(evilName: string, content = 'pwned'): Promise<Buffer> {
  const placeholder = 'x'.repeat(evilName.length);
  const buf = await makeZip([
    { name: 'ok.py', content: 'print(1)' },
    { name: placeholder, content },
  ]);
  const from = Buffer.from(placeholder);
  const to = Buffer.from(evilName);
  let i = buf.indexOf(from);
  while (i >= 0) {
    to.copy(buf, i);
    i = buf.indexOf(from, i + to.length);
  }
  return buf;
}

/** Rewrites every central-directory "uncompressed size" field to `size` (a lying header). */
export function lieAboutSizes(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let i = 0; i + 46 <= out.length; i++) {
    if (out.readUInt32LE(i) === 0x02014b50) out.writeUInt32LE(size, i + 24);
  }
  return out;
}

export async function multipart(
  m: TestMaster,
  method: string,
  route: string,
  fields: Record<string, string>,
  zip?: Buffer,
  token?: string,
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (zip) form.append('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'spider.zip');
  const res = await fetch(new URL(`/api${route}`, m.url), {
    method,
    headers: { authorization: token ?? m.adminToken },
    body: form,
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = { status: 'error', error: text };
  }
  return { status: res.status, body };
}

export async function counts(m: TestMaster) {
  const db = m.master.store.db;
  const n = async (t: 'spiders' | 'spider_files' | 'blobs' | 'projects' | 'variables') =>
    Number(
      (
        await db
          .selectFrom(t)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    spiders: await n('spiders'),
    files: await n('spider_files'),
    blobs: await n('blobs'),
    projects: await n('projects'),
    variables: await n('variables'),
  };
}

export async function fileSnapshot(m: TestMaster, spiderId: string) {
  return m.master.store.db
    .selectFrom('spider_files')
    .select(['path', 'is_dir', 'hash', 'size'])
    .where('spider_id', '=', spiderId)
    .orderBy('path')
    .execute();
}
