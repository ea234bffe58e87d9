/**
 * Whether a released version is newer than the running one (the console then offers the upgrade): dot-separated
 * numeric parts compared left to right; the latest is greater at the first difference; missing or non-numeric
 * parts of the latest count as 0. A leading "v" is ignored.
 */
function parts(version: string): number[] {
  return version
    .trim()
    .replace(/^v/i, '')
    .split('.')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : 0));
}

export function isNewerVersion(latest: string | undefined | null, current: string | undefined | null): boolean {
  if (!latest || !current) return false;
  const a = parts(latest);
  const b = parts(current);
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return false;
}
