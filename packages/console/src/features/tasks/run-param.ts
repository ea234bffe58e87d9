/**
 * The task param of the Run dialog. The node runs `cmd + ' ' + param` (docs/spiders.md "Command line"), so for a
 * Scrapy project whose command is a bare `scrapy crawl` the chosen spider name leads the param; with an empty
 * command the param is the whole `scrapy crawl NAME …`; when the command already names a spider
 * (`scrapy crawl quotes`) that name is fixed and the param carries only the extra options.
 */
export function scrapyMode(cmd: string | undefined): { mode: 'none' | 'name' | 'full' | 'fixed'; fixedName?: string } {
  const c = (cmd ?? '').trim();
  if (!c) return { mode: 'full' };
  if (/^scrapy\s+crawl$/.test(c)) return { mode: 'name' };
  const m = /^scrapy\s+crawl\s+([^\s-][^\s]*)/.exec(c);
  if (m) return { mode: 'fixed', fixedName: m[1] };
  return { mode: 'none' };
}

export function buildParam(
  cmd: string | undefined,
  scrapy: boolean,
  name: string | undefined,
  flags: string | undefined,
): string {
  const f = (flags ?? '').trim();
  if (!scrapy) return f;
  const { mode } = scrapyMode(cmd);
  const join = (...p: (string | undefined)[]) => p.filter((x) => x && x.trim()).join(' ');
  if (mode === 'name') return join(name, f);
  if (mode === 'full') return join(name ? `scrapy crawl ${name}` : undefined, f);
  return f;
}
