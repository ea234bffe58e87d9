/**
 * Product constants shared by server and console: name and version, languages, timeouts, layout sizes of the
 * console shell, default page sizes of the lists, and the limits of user names and passwords.
 */
export const PRODUCT_NAME = 'Crawldeck';
export const VERSION = '4.0.0';
export const VERSION_LABEL = 'v4.0';

export const LANGUAGES = ['zh', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'zh';
/** Cookie holding the console's language, so the master can preload that language's texts with index.html. */
export const LANGUAGE_COOKIE = 'lang';

export const REQUEST_TIMEOUT_MS = 15000;
export const ERROR_TOAST_MS = 5000;
export const CHUNK_LOAD_TIMEOUT_MS = 120000;
export const DOCS_TREE_DELAY_MS = 100;
export const MENU_SHOW_TIMEOUT_MS = 200;

export const SIDEBAR_WIDTH = 180;
export const SIDEBAR_COLLAPSED_WIDTH = 36;
export const NAVBAR_HEIGHT = 50;
export const TAGS_VIEW_HEIGHT = 34;
export const DRAWER_WIDTH = 300;
export const TAG_SPACING = 4;
export const CONTEXT_MENU_MIN_WIDTH = 105;
export const CONTEXT_MENU_OFFSET = 15;
export const QR_IMAGE_WIDTH = 240;

export const MOBILE_BREAKPOINT = 1024;
export const MOBILE_TOLERANCE = 3;

export const ALL_SPIDERS_PAGE_SIZE = 99999999;
export const SITE_PAGE_SIZE = 10;
export const TASK_PAGE_SIZE = 10;
export const RESULTS_PAGE_SIZE = 10;
export const USER_PAGE_SIZE = 10;
export const LOG_PAGE_SIZE = 5000;

export const DEFAULT_MAX_ERROR_LOG = 1000;
export const RETRY_MAX = 5;
/** Longest wait of an automatic retry's backoff, and of its first delay, in seconds (one hour). */
export const RETRY_DELAY_MAX_SECONDS = 3600;
/** How a task may end that an automatic retry repeats: an error exit, its node lost (abnormal), or timed out. */
export const RETRY_ON = ['error', 'abnormal', 'timed_out'] as const;
export type RetryOn = (typeof RETRY_ON)[number];
/** What a spider retries unless told otherwise. */
export const RETRY_ON_DEFAULT: readonly RetryOn[] = ['error', 'abnormal'];
/** Largest concurrency limit a spider or a project may set (tasks holding a node's slot at once). */
export const MAX_RUNNING_MAX = 10_000;
export const PASSWORD_MIN_LENGTH = 5;
export const USERNAME_MAX_LENGTH = 100;

/** Largest page a list call accepts; the console's "all spiders" call uses ALL_SPIDERS_PAGE_SIZE. */
export const MAX_PAGE_SIZE = ALL_SPIDERS_PAGE_SIZE;

/** Longest maximum run time a spider or a run may set: 30 days, in seconds. */
export const TIMEOUT_MAX_SECONDS = 30 * 24 * 3600;
