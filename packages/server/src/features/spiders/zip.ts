import yauzl from 'yauzl';
import { HttpError, badRequest } from '../../http/errors.ts';
import { normalisePath } from './paths.ts';

/**
 * Reads an uploaded spider zip fully into memory, refusing (400, before anything is stored):
 * entries escaping the root (zip-slip: `..`, absolute, backslashes, drive letters), symbolic links, encrypted
 * entries, more than `maxEntries` entries, or more than `maxBytes` once inflated — counted on the bytes actually
 * inflated, so a header that lies about sizes does not help. A spider's files sit at the zip root; a zip whose
 * only top-level entry is one folder has that folder stripped (`strippedFolder` says which). `__MACOSX/` is ignored.
 */
export interface ZipLimits {
  maxEntries: number;
  maxBytes: number;
}

export interface ZipContents {
  files: { path: string; content: Buffer }[];
  dirs: string[];
  strippedFolder: string | null;
}

const fmt = (n: number) =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) ? 1 : 0)} MiB` : `${n} bytes`;

function zipError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const msg = (err as Error)?.message ?? String(err);
  if (/absolute path|invalid relative path|invalid characters/i.test(msg))
    return badRequest(`zip entry escapes the spider folder: ${msg}`);
  if (/end of central directory|signature/i.test(msg)) return badRequest('the upload is not a valid zip file');
  return badRequest(`invalid zip file: ${msg}`);
}

export function readZip(buf: Buffer, limits: ZipLimits): Promise<ZipContents> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      buf,
      { lazyEntries: true, strictFileNames: true, validateEntrySizes: true, decodeStrings: true },
      (openErr, zip) => {
        if (openErr || !zip) return reject(zipError(openErr));
        let settled = false;
        const fail = (err: unknown) => {
          if (settled) return;
          settled = true;
          zip.close();
          reject(zipError(err));
        };
        if (zip.entryCount > limits.maxEntries)
          return fail(
            badRequest(
              `the zip holds ${zip.entryCount} entries; the limit is ${limits.maxEntries} (CRAWLDECK_ZIP_MAX_ENTRIES)`,
            ),
          );
        const tooBig = () =>
          badRequest(
            `the zip expands to more than ${fmt(limits.maxBytes)}; the limit is set by CRAWLDECK_ZIP_MAX_BYTES`,
          );
        const files = new Map<string, Buffer>();
        const dirs = new Set<string>();
        let entries = 0;
        let total = 0;

        zip.on('error', fail);
        zip.on('end', () => {
          if (settled) return;
          settled = true;
          try {
            resolve(finish(files, dirs));
          } catch (err) {
            reject(zipError(err));
          }
        });
        zip.on('entry', (entry: yauzl.Entry) => {
          if (settled) return;
          entries++;
          if (entries > limits.maxEntries)
            return fail(badRequest(`the zip holds more than ${limits.maxEntries} entries (CRAWLDECK_ZIP_MAX_ENTRIES)`));
          const name = entry.fileName;
          if (name === '__MACOSX' || name.startsWith('__MACOSX/')) return zip.readEntry();
          const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
          if (mode === 0o120000)
            return fail(badRequest(`zip entry "${name}" is a symbolic link; links are not allowed`));
          let p: string;
          try {
            p = normalisePath(name, { label: `zip entry "${name}"` });
          } catch (err) {
            return fail(err);
          }
          if (name.endsWith('/')) {
            dirs.add(p);
            return zip.readEntry();
          }
          if (entry.isEncrypted())
            return fail(badRequest(`zip entry "${name}" is encrypted; encrypted zips are not supported`));
          if (files.has(p)) return fail(badRequest(`zip entry "${p}" appears twice`));
          // Cheap early refusal from the header; the real guard counts inflated bytes below.
          if (total + entry.uncompressedSize > limits.maxBytes) return fail(tooBig());
          zip.openReadStream(entry, (err, stream) => {
            if (err || !stream) return fail(err);
            const chunks: Buffer[] = [];
            stream.on('data', (c: Buffer) => {
              total += c.length;
              if (total > limits.maxBytes) {
                stream.destroy();
                return fail(tooBig());
              }
              chunks.push(c);
            });
            stream.on('error', fail);
            stream.on('end', () => {
              if (settled) return;
              files.set(p, Buffer.concat(chunks));
              zip.readEntry();
            });
          });
        });
        zip.readEntry();
      },
    );
  });
}

function finish(files: Map<string, Buffer>, dirs: Set<string>): ZipContents {
  if (files.size === 0) throw badRequest('the zip holds no files');
  const tops = new Set<string>();
  for (const p of [...files.keys(), ...dirs]) tops.add(p.split('/')[0]);
  let strippedFolder: string | null = null;
  if (tops.size === 1) {
    const [top] = tops;
    if (!files.has(top)) strippedFolder = top;
  }
  const strip = (p: string) => (strippedFolder ? p.slice(strippedFolder.length + 1) : p);
  return {
    files: [...files].map(([path, content]) => ({ path: strip(path), content })),
    dirs: [...dirs].filter((d) => d !== strippedFolder).map(strip),
    strippedFolder,
  };
}
