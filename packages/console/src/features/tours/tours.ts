/**
 * Guided tours. Pure definitions and rules; the antd Tour is mounted by TourFor.tsx.
 *
 * A tour's "final step": the 0-based index of a tour's last step, so spider-list (final
 * step 3) has four steps 0..3. A tour ends as 'completed' when its current step equals its final step, otherwise
 * 'skipped'. When some targets are missing on screen (a screen that has not landed yet, a hidden element) those
 * steps are left out, and the final step of the tour as shown is its last shown step.
 *
 * Targets are elements with a `data-tour="<target>"` attribute; texts are `tours:<text key>.title` / `.desc`
 * (the text key is the target unless a step names its own).
 *
 * Storage: localStorage `tour` holds a JSON object mapping tour name → 1 for every finished tour (completed or
 * skipped). A legacy JSON list of names is read too; writes always use the object form.
 */
export const TOUR_FINAL_STEPS = {
  'spider-list': 3,
  'spider-list-add': 8,
  'spider-detail': 9,
  'spider-detail-config': 12,
  'task-list': 4,
  'task-detail': 7,
  'node-detail': 4,
  'schedule-list': 1,
  'schedule-list-add': 8,
  setting: 2,
} as const;

export type TourName = keyof typeof TOUR_FINAL_STEPS;
export type TourResult = 'completed' | 'skipped';

/** A step: its data-tour target (texts under the same key), or a target with its own text key. */
export type TourStepDef = string | { target: string; text: string };

export function stepTarget(step: TourStepDef): string {
  return typeof step === 'string' ? step : step.target;
}

export function stepText(step: TourStepDef): string {
  return typeof step === 'string' ? step : step.text;
}

/**
 * Steps of each tour in order (length = final step + 1). spider-detail-config runs on the Rules tab, where the
 * configurable spider's form lives (targets placed by the spiders feature), and ends on the Config tab label
 * (the same configuration as a Spiderfile).
 */
export const TOUR_STEPS: Record<TourName, readonly TourStepDef[]> = {
  'spider-list': ['spider-list-search', 'spider-list-table', 'spider-list-import', 'spider-list-add'],
  'spider-list-add': [
    'spider-add-name',
    'spider-add-display-name',
    'spider-add-type',
    'spider-add-cmd',
    'spider-add-col',
    'spider-add-project',
    'spider-add-public',
    'spider-add-files',
    'spider-add-submit',
  ],
  'spider-detail': [
    'spider-detail-title',
    'spider-detail-tab-overview',
    'spider-detail-tab-files',
    'spider-detail-tab-environment',
    'spider-detail-tab-analytics',
    'spider-detail-tab-rules',
    'spider-detail-tab-config',
    'spider-detail-tab-deploys',
    'spider-detail-tab-tasks',
    'spider-detail-tab-schedules',
  ],
  'spider-detail-config': [
    'config-extract-fields',
    'config-preview',
    'config-convert',
    'config-start-url',
    'config-start-stage',
    'config-engine',
    'config-settings',
    'config-stages',
    'config-fields',
    'config-add-field',
    'config-add-stage',
    'config-save',
    { target: 'spider-detail-tab-config', text: 'config-yaml-tab' },
  ],
  'task-list': ['task-list-title', 'task-list-live', 'task-list-filter', 'task-list-refresh', 'task-list-table'],
  'task-detail': [
    'task-detail-back',
    'task-detail-title',
    'task-detail-id',
    'task-detail-restart',
    'task-detail-delete',
    'task-detail-tab-overview',
    'task-detail-tab-log',
    'task-detail-tab-results',
  ],
  'node-detail': [
    'node-detail-title',
    'node-detail-tab-overview',
    'node-detail-tab-installation',
    'node-detail-tab-monitor',
    'node-detail-tab-network',
  ],
  'schedule-list': ['schedule-list-table', 'schedule-list-add'],
  'schedule-list-add': [
    'schedule-add-name',
    'schedule-add-spider',
    'schedule-add-run-type',
    'schedule-add-cron',
    'schedule-add-timezone',
    'schedule-add-param',
    'schedule-add-retries',
    'schedule-add-description',
    'schedule-add-enabled',
  ],
  setting: ['setting-tab-general', 'setting-tab-notifications', 'setting-tab-tokens'],
};

export const TOUR_NAMES = Object.keys(TOUR_FINAL_STEPS) as TourName[];

/** How a tour ended, for the usage events: completed if the user reached the final step, otherwise skipped. */
export function tourEndResult(current: number, finalStep: number): TourResult {
  return current === finalStep ? 'completed' : 'skipped';
}

export const TOUR_STORAGE_KEY = 'tour';

interface KV {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Names of finished tours from localStorage `tour` (object map name → 1, or a legacy list of names). */
export function readFinishedTours(storage: KV = localStorage): Set<string> {
  try {
    const v = JSON.parse(storage.getItem(TOUR_STORAGE_KEY) ?? '{}') as unknown;
    if (Array.isArray(v)) return new Set(v.filter((x): x is string => typeof x === 'string'));
    if (v && typeof v === 'object')
      return new Set(
        Object.entries(v)
          .filter(([, x]) => !!x)
          .map(([k]) => k),
      );
  } catch {
    /* corrupt value: nothing finished */
  }
  return new Set();
}

export function isTourFinished(name: string, storage: KV = localStorage): boolean {
  return readFinishedTours(storage).has(name);
}

export function markTourFinished(name: string, storage: KV = localStorage): void {
  const map: Record<string, 1> = {};
  for (const n of readFinishedTours(storage)) map[n] = 1;
  map[name] = 1;
  storage.setItem(TOUR_STORAGE_KEY, JSON.stringify(map));
}

/** Tours run only when localStorage enableTutorial is '1' and the tour is not finished. */
export function shouldShowTour(name: string, storage: KV = localStorage): boolean {
  return storage.getItem('enableTutorial') === '1' && !isTourFinished(name, storage);
}
