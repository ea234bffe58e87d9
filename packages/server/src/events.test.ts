import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, EventBus, type EventName } from './events.ts';

// Every name of the map is in EVENT_NAMES (a compile error otherwise).
type Missing = Exclude<EventName, (typeof EVENT_NAMES)[number]>;
const complete: [Missing] extends [never] ? true : false = true;

const SRC = path.dirname(fileURLToPath(import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** Event names used at `events.<method>('name'` call sites in the server's code. */
function callSites(methods: string): Set<string> {
  const re = new RegExp(`events\\.(?:${methods})\\(\\s*['"]([^'"]+)['"]`, 'g');
  const names = new Set<string>();
  for (const file of sources(SRC)) for (const m of readFileSync(file, 'utf8').matchAll(re)) names.add(m[1]);
  return names;
}

describe('event map', () => {
  it('names each event once, and every event is both emitted and listened to in the server', () => {
    expect(complete).toBe(true);
    expect(new Set(EVENT_NAMES).size).toBe(EVENT_NAMES.length);
    const emitted = callSites('emit');
    const heard = callSites('on|once');
    expect([...emitted].sort()).toEqual([...EVENT_NAMES].sort());
    expect([...heard].sort()).toEqual([...EVENT_NAMES].sort());
  });

  it('delivers a payload to its listeners until they are removed', () => {
    const bus = new EventBus();
    const got: string[] = [];
    const fn = (ev: { nodeId: string }) => got.push(ev.nodeId);
    bus.on('node.offline', fn);
    bus.once('node.offline', (ev) => got.push(`once:${ev.nodeId}`));
    expect(bus.emit('node.offline', { nodeId: 'a' })).toBe(true);
    bus.off('node.offline', fn);
    expect(bus.emit('node.offline', { nodeId: 'b' })).toBe(false);
    expect(got).toEqual(['a', 'once:a']);
    expect(bus.listenerCount('node.offline')).toBe(0);
  });
});
