/**
 * The dependency-free part of @crawldeck/shared: constants, ids and pure rules. The console shell imports from
 * `@crawldeck/shared/core` so that its first load does not carry the request schemas (TypeBox), the Spiderfile
 * parser (js-yaml) or the cron engine (croner), which the index re-exports for server and screens.
 */
export * from './api.ts';
export * from './ids.ts';
export * from './constants.ts';
export * from './rules/error-line.ts';
export * from './rules/version.ts';
export * from './rules/validation.ts';
export * from './errors.ts';
