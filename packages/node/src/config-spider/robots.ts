/**
 * robots.txt (RFC 9309): the group for our user-agent token (else `*`), Allow/Disallow with `*` and `$`
 * wildcards, longest match wins, Allow wins a tie. Unreachable or 4xx robots.txt allows everything; 5xx disallows
 * everything (RFC 9309 §2.3.1.4), so a broken server is not hammered.
 */
export interface RobotsRules {
  allows(pathAndQuery: string): boolean;
  crawlDelay?: number;
}

interface Rule {
  allow: boolean;
  pattern: string;
  re: RegExp;
}

function toRegExp(p: string): RegExp {
  const anchored = p.endsWith('$');
  const body = (anchored ? p.slice(0, -1) : p)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp('^' + body + (anchored ? '$' : ''));
}

export function parseRobots(text: string, agent: string): RobotsRules {
  const token = agent.toLowerCase().split('/')[0];
  const groups: { agents: string[]; rules: Rule[]; delay?: number }[] = [];
  let current: { agents: string[]; rules: Rule[]; delay?: number } | null = null;
  let lastWasAgent = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1].toLowerCase();
    const value = m[2].trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if ((key === 'allow' || key === 'disallow') && value) {
      let pattern = value;
      try {
        pattern = decodeURI(value);
      } catch {
        /* keep as is */
      }
      current.rules.push({ allow: key === 'allow', pattern, re: toRegExp(pattern) });
    } else if (key === 'crawl-delay') {
      const d = Number(value);
      if (Number.isFinite(d) && d >= 0) current.delay = d;
    }
  }
  const mine = groups.filter((g) => g.agents.some((a) => a !== '*' && token.includes(a)));
  const chosen = mine.length ? mine : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  const delay = chosen.find((g) => g.delay !== undefined)?.delay;
  return {
    crawlDelay: delay,
    allows(pathAndQuery: string) {
      let p = pathAndQuery;
      try {
        p = decodeURI(pathAndQuery);
      } catch {
        /* keep */
      }
      if (p === '/robots.txt') return true;
      let best: Rule | undefined;
      for (const r of rules) {
        if (!r.re.test(p)) continue;
        if (!best || r.pattern.length > best.pattern.length || (r.pattern.length === best.pattern.length && r.allow))
          best = r;
      }
      return best ? best.allow : true;
    },
  };
}

export const ALLOW_ALL: RobotsRules = { allows: () => true };
export const DISALLOW_ALL: RobotsRules = { allows: () => false };
