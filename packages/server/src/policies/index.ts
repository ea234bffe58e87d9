/**
 * Who may read, change or run what: one policy per resource, in one place. Each policy gives a row check for
 * single-resource routes (404 when the row does not exist or the caller may not even read it, exactly as for an
 * unknown id; 403 when the caller sees it but may not do what they ask) and a Kysely filter
 * for list queries, so lists, counts and totals are filtered in SQL by the same rule; event streams ask the same
 * policies before they forward an event. Route handlers ask a policy instead of writing a rule.
 *
 * What only administrators touch has no policy of its own: the routes of users, webhooks and system settings, and
 * those that change global variables, declare `access: 'admin'` and the master refuses everyone else before a
 * handler runs (reading variables is `access: 'user'`). A normal user reaches their own account only through
 * /api/me, which acts on the caller and takes no id.
 */
export * from './types.ts';
export * from './spider.policy.ts';
export * from './task.policy.ts';
export * from './schedule.policy.ts';
export * from './deploy.policy.ts';
export * from './node.policy.ts';
export * from './collection.policy.ts';
export * from './project.policy.ts';
export * from './token.policy.ts';
export * from './datasource.policy.ts';
export * from './environment.policy.ts';
