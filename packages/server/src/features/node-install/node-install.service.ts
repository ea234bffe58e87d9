/**
 * Joining a node from another machine: the master builds the node bundle once per start (packages/node bundle.ts),
 * serves it with its SHA-256, and serves a one-line installer that downloads it, checks the hash and unpacks it.
 * The node key never travels in the installer: the operator puts it in a file the node reads.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { VERSION } from '@crawldeck/shared';
import type { AppContext } from '../../context.ts';

export interface NodeBundle {
  file: string;
  sha256: string;
  size: number;
  version: string;
  /** The top-level names the bundle unpacks into the node's folder: all the installer may replace there. */
  entries: readonly string[];
}

/** The file the installer leaves in the node's folder, listing the names it put there. */
const INSTALL_MARK = '.crawldeck-node-install';

const built = new WeakMap<AppContext, Promise<NodeBundle>>();

/** The bundle of this master's node code, built on first use (a few seconds) and kept for the master's life. */
export function nodeBundle(ctx: AppContext): Promise<NodeBundle> {
  let p = built.get(ctx);
  if (!p) {
    p = (async () => {
      const { buildNodeBundle, BUNDLE_ENTRIES } = await import('@crawldeck/node/bundle');
      const file = path.join(ctx.config.dataDir, 'node-bundle', `crawldeck-node-${VERSION}.tar.gz`);
      await buildNodeBundle(file, VERSION);
      const sha256 = createHash('sha256')
        .update(await readFile(file))
        .digest('hex');
      return { file, sha256, size: (await stat(file)).size, version: VERSION, entries: BUNDLE_ENTRIES };
    })();
    p.catch(() => built.delete(ctx));
    built.set(ctx, p);
  }
  return p;
}

/** The URL nodes reach this master at, from the request; a Host header that is not a plain host:port is not used. */
export function masterUrl(ctx: AppContext, protocol: string, host: string | undefined): string {
  const safe =
    host && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)
      ? host
      : `127.0.0.1:${ctx.config.port}`;
  return `${protocol === 'https' ? 'https' : 'http'}://${safe}`;
}

/** What an operator runs on the new machine: install, write the key into a private file, start the node. */
export function joinCommand(url: string, key: string): string {
  return (
    `curl -fsSL ${url}/api/node-install/install.sh | sh && ` +
    `(umask 077; printf '%s\\n' '${key.replace(/'/g, `'\\''`)}' > crawldeck-node/node-key) && ` +
    `crawldeck-node/bin/crawldeck-node --master ${url} --key-file crawldeck-node/node-key`
  );
}

/**
 * The installer: POSIX sh, needs Node.js ≥ 20.19 and curl or wget; checks the bundle's SHA-256 before unpacking.
 * It replaces only what a bundle holds (`bin`, `packages`, `VERSION`, listed in a mark file it leaves), so running
 * it again upgrades the node and keeps its `node-key` and `data`; in a folder it did not make it adds its files
 * beside the others, and refuses (changing nothing) when one of its names is already taken there.
 */
export function installScript(url: string, b: NodeBundle): string {
  return `#!/bin/sh
# Crawldeck node ${b.version}, installed from the master at ${url}.
# Downloads the node bundle, checks its SHA-256 and unpacks it into ./crawldeck-node (or $CRAWLDECK_NODE_HOME).
# Run again to upgrade: only the files listed in $DEST/${INSTALL_MARK} are replaced, everything else stays.
set -eu
MASTER='${url}'
SHA256='${b.sha256}'
DEST="\${CRAWLDECK_NODE_HOME:-crawldeck-node}"
MARK="$DEST/${INSTALL_MARK}"
OURS='${b.entries.join(' ')}'
fail() { echo "crawldeck: $*" >&2; exit 1; }
command -v node >/dev/null 2>&1 || fail "Node.js >= 20.19 is needed on this machine"
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' ||
  fail "Node.js >= 20.19 is needed, this machine has $(node --version)"
[ ! -e "$DEST" ] || [ -d "$DEST" ] || fail "$DEST exists and is not a folder: nothing installed"
if [ -d "$DEST" ] && [ ! -f "$MARK" ] && ! { [ -f "$DEST/VERSION" ] && [ -f "$DEST/bin/crawldeck-node" ]; }; then
  for e in $OURS; do
    if [ -e "$DEST/$e" ] || [ -L "$DEST/$e" ]; then
      fail "$DEST/$e exists and was not installed by Crawldeck: nothing installed (set CRAWLDECK_NODE_HOME to another folder)"
    fi
  done
fi
tmp=$(mktemp -d)
stage=''
trap 'rm -rf "$tmp"; [ -z "$stage" ] || rm -rf "$stage"' EXIT
if command -v curl >/dev/null 2>&1; then curl -fsSL "$MASTER/api/node-install/bundle.tar.gz" -o "$tmp/bundle.tar.gz"
else wget -qO "$tmp/bundle.tar.gz" "$MASTER/api/node-install/bundle.tar.gz"; fi
got=$(node -e 'process.stdout.write(require("crypto").createHash("sha256").update(require("fs").readFileSync(process.argv[1])).digest("hex"))' "$tmp/bundle.tar.gz")
[ "$got" = "$SHA256" ] || fail "the bundle's SHA-256 is $got, expected $SHA256: nothing installed"
mkdir -p "$DEST"
stage=$(mktemp -d "$DEST/.crawldeck-install.XXXXXX")
tar -xzf "$tmp/bundle.tar.gz" -C "$stage"
old=''
[ ! -f "$MARK" ] || old=$(cat "$MARK")
for e in $old $OURS; do
  case "$e" in ''|.|..|*/*) continue ;; esac
  rm -rf "$DEST/$e"
done
for e in $OURS; do mv "$stage/crawldeck-node/$e" "$DEST/$e"; done
printf '%s\n' $OURS > "$MARK"
echo "crawldeck node ${b.version} installed in $DEST"
echo "start it with: $DEST/bin/crawldeck-node --master $MASTER --key-file FILE   (FILE holds the node key)"
`;
}
