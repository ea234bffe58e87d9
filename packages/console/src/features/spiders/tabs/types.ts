import type { Spider } from '../types.ts';

/** Props every spider-detail tab receives. `active` is true while the tab is the selected one. */
export interface SpiderTabProps {
  spider: Spider;
  active: boolean;
}
