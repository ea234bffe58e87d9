// Every text of the Chinese console, one chunk loaded on demand by index.ts.
import { areasOf, type Messages } from './index.ts';

export default areasOf(import.meta.glob<{ default: Messages }>('./zh/*.ts', { eager: true }));
