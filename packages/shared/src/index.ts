export * from './api.ts';
export * from './ids.ts';
export * from './constants.ts';
export * from './rules/error-line.ts';
export * from './rules/version.ts';
export * from './rules/validation.ts';
export * from './session.ts';
