/**
 * Content-Disposition of a download, for every file the API hands out (results, spider files): the exact UTF-8 name
 * (a spider or file may be named in Chinese) and an ASCII copy for clients that read only `filename`.
 */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
