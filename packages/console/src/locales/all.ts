// Both languages' texts at once, for the parity test (the console itself loads one language: index.ts).
import { areasOf, type Messages } from './index.ts';

export const resources: Record<string, Record<string, Messages>> = {
  en: areasOf(import.meta.glob<{ default: Messages }>('./en/*.ts', { eager: true })),
  zh: areasOf(import.meta.glob<{ default: Messages }>('./zh/*.ts', { eager: true })),
};
