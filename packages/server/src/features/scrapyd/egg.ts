import { readZip, type ZipLimits } from '../spiders/zip.ts';

/**
 * A Python egg as `scrapyd-deploy` builds it is a zip of the project's packages plus `EGG-INFO/`, whose
 * `entry_points.txt` names the settings module (`[scrapy] settings = shop.settings`). As a spider's files it
 * becomes those packages and a `scrapy.cfg` pointing at that module, so it runs like any uploaded Scrapy project.
 */
export interface EggFiles {
  files: { path: string; content: Buffer }[];
  dirs: string[];
  settingsModule: string;
}

export class EggError extends Error {}

/** The `settings` entry point of the `scrapy` group, or undefined. */
export function settingsEntryPoint(entryPoints: string): string | undefined {
  let group = '';
  for (const raw of entryPoints.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      group = header[1].trim();
      continue;
    }
    const m = /^settings\s*=\s*([\w.]+)\s*$/.exec(line);
    if (group === 'scrapy' && m) return m[1];
  }
  return undefined;
}

export async function eggFiles(egg: Buffer, limits: ZipLimits): Promise<EggFiles> {
  const zip = await readZip(egg, limits);
  const inEggInfo = (p: string) => p === 'EGG-INFO' || p.startsWith('EGG-INFO/');
  const entryPoints = zip.files.find((f) => f.path === 'EGG-INFO/entry_points.txt');
  const settingsModule = entryPoints && settingsEntryPoint(entryPoints.content.toString('utf8'));
  if (!settingsModule)
    throw new EggError('the egg names no Scrapy settings (entry point "settings" in the group "scrapy")');
  const files = zip.files.filter((f) => !inEggInfo(f.path) && f.path !== 'scrapy.cfg');
  files.push({ path: 'scrapy.cfg', content: Buffer.from(`[settings]\ndefault = ${settingsModule}\n`) });
  return { files, dirs: zip.dirs.filter((d) => !inEggInfo(d)), settingsModule };
}
