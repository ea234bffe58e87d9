import type { Breakpoint } from 'antd';

/**
 * Table columns shown only on wide screens (antd's xxl, 1600 px and more), so that lists fit a 1400 px window
 * without sideways scrolling; the detail screens show what these columns hold.
 */
export const WIDE_SCREEN_ONLY: Breakpoint[] = ['xxl'];
