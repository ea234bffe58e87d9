#!/usr/bin/env node
// The `crawldeck` executable: runs the TypeScript CLI through tsx (docs/adr/0001-typescript-without-a-build-step.md).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
