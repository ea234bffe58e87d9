// Every text of the English console, one chunk loaded on demand by index.ts.
import { areasOf, type Messages } from './index.ts';

export default areasOf(import.meta.glob<{ default: Messages }>('./en/*.ts', { eager: true }));
