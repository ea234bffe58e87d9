import type { Feature } from '../context.ts';
import { sessionFeature } from './session/session.routes.ts';
import { systemFeature } from './system/system.routes.ts';

/** Every feature of the master, registered in this order. Add one line per feature. */
export const features: Feature[] = [sessionFeature, systemFeature];
