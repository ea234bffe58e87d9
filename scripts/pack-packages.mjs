// `npm run pack-packages`: builds the `crawldeck` (CLI) and `crawldeck-node` (worker node) npm packages and packs
// them into dist/packages/ as .tgz files, ready for `npm install <file>` on any machine or for `npm publish <file>`.
import path from 'node:path';
import { register } from 'tsx/esm/api';

register();
const { packPackages } = await import('../packages/cli/src/package-build.ts');
const out = path.resolve(import.meta.dirname, '..', 'dist', 'packages');
const { cli, node } = await packPackages(out);
console.log(`${cli}\n${node}`);
