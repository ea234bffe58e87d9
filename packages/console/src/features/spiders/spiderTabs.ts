/** The tabs of the spider detail screen, in their order; the `?tab=` value of each. */
export const SPIDER_TABS = [
  'overview',
  'files',
  'environment',
  'analytics',
  'rules',
  'config',
  'deploys',
  'tasks',
  'schedules',
] as const;
export type SpiderTab = (typeof SPIDER_TABS)[number];
