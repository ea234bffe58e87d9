import { SingleBar } from 'cli-progress';
import type { Spider, UploadResult } from '@crawldeck/shared';
import type { ApiClient } from '../api-client.ts';
import { findDeployFolder, listDeployFiles, zipFolder } from '../project-zip.ts';
import { printJson, type Output } from '../output.ts';
import { findOwnSpider } from './spiders.ts';

export interface DeployOptions {
  name?: string;
  cmd?: string;
  /** The spider's source folder inside the deployed folder (a project in a sub-folder); checked by the master. */
  src?: string;
}

function progress(out: Output, label: string): { update(sent: number, total: number): void; stop(): void } {
  if (!out.tty || out.json) return { update() {}, stop() {} };
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | {value}/{total} kB`,
    stream: process.stderr,
    hideCursor: true,
    barsize: 30,
  });
  let started = false;
  return {
    update(sent, total) {
      if (!started) bar.start(Math.ceil(total / 1024), 0);
      started = true;
      bar.update(Math.ceil(sent / 1024));
    },
    stop: () => started && bar.stop(),
  };
}

/** Zips the folder (the Scrapy project around it when there is one) and creates or updates the spider. */
export async function deploy(api: ApiClient, dir: string, opts: DeployOptions, out: Output): Promise<void> {
  const folder = findDeployFolder(dir);
  const name = opts.name ?? folder.name;
  const files = listDeployFiles(folder.root);
  if (!files.length) throw new Error(`${folder.root} holds no files to deploy`);
  const zip = await zipFolder(folder.root, files);
  if (!out.json)
    process.stderr.write(
      `Packing ${folder.root}${folder.isScrapy ? ' (Scrapy project)' : ''}: ${files.length} files, ${(zip.length / 1024).toFixed(1)} kB\n`,
    );
  const existing = await findOwnSpider(api, name);
  const bar = progress(out, existing ? `Updating ${name}` : `Creating ${name}`);
  let spider: Spider;
  let upload: UploadResult;
  try {
    const file = { field: 'file', filename: `${name}.zip`, content: zip };
    if (existing) {
      upload = await api.upload<UploadResult>('POST', `/spiders/${existing._id}/upload`, {}, file, bar.update);
      const changes = { ...(opts.cmd ? { cmd: opts.cmd } : {}), ...(opts.src !== undefined ? { src: opts.src } : {}) };
      if (Object.keys(changes).length) await api.call('POST', `/spiders/${existing._id}`, { body: changes });
      spider = (await api.call<Spider>('GET', `/spiders/${existing._id}`)).data;
    } else {
      const fields: Record<string, string> = {
        name,
        type: 'customized',
        ...(opts.cmd ? { cmd: opts.cmd } : {}),
        ...(opts.src !== undefined ? { src: opts.src } : {}),
      };
      const created = await api.upload<Spider & { upload: UploadResult }>('PUT', '/spiders', fields, file, bar.update);
      spider = created;
      upload = created.upload;
    }
  } finally {
    bar.stop();
  }
  const result = {
    action: existing ? 'updated' : 'created',
    id: spider._id,
    name: spider.name,
    files: upload.files,
    is_scrapy: spider.is_scrapy,
    cmd: spider.cmd,
  };
  if (out.json) return printJson(result);
  process.stdout.write(
    `${existing ? 'Updated' : 'Created'} spider ${spider.name} (${spider._id}): ${upload.files} files, command: ${spider.cmd || '(none: set one before running)'}\n`,
  );
}
