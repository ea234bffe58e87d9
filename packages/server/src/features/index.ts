import type { Feature } from '../context.ts';
import { sessionFeature } from './session/session.routes.ts';
import { systemFeature } from './system/system.routes.ts';
import { spidersFeature } from './spiders/spiders.routes.ts';
import { projectsFeature } from './projects/projects.routes.ts';
import { variablesFeature } from './variables/variables.routes.ts';
import { usersFeature } from './users/users.routes.ts';
import { tokensFeature } from './tokens/tokens.routes.ts';
import { settingsFeature } from './settings/settings.routes.ts';
import { databaseFeature } from './database/database.routes.ts';
import { feedbackFeature } from './feedback/feedback.routes.ts';
import { sitesFeature } from './sites/sites.routes.ts';
import { statsFeature } from './stats/stats.routes.ts';
import { nodesFeature } from './nodes/nodes.routes.ts';
import { executionFeature } from './execution/execution.routes.ts';
import { tasksFeature } from './tasks/tasks.routes.ts';
import { scrapyFeature } from './scrapy/scrapy.routes.ts';
import { gitFeature } from './git/git.routes.ts';
import { schedulesFeature } from './schedules/schedules.routes.ts';
import { webhooksFeature } from './webhooks/webhooks.routes.ts';
import { notificationsFeature } from './notifications/notifications.routes.ts';
import { configSpiderFeature } from './config-spider/config-spider.routes.ts';
import { spiderStatsFeature } from './spider-stats/spider-stats.routes.ts';
import { scrapyStatsFeature } from './scrapy-stats/scrapy-stats.routes.ts';
import { metricsFeature } from './metrics/metrics.routes.ts';
import { suspiciousFeature } from './suspicious/suspicious.routes.ts';
import { deploysFeature } from './deploys/deploys.routes.ts';
import { dataSourcesFeature } from './datasources/datasources.routes.ts';
import { environmentsFeature } from './environments/environments.routes.ts';
import { nodeInstallFeature } from './node-install/node-install.routes.ts';
import { docsFeature } from './docs/docs.routes.ts';
import { scrapydFeature } from './scrapyd/scrapyd.routes.ts';

/** Every feature of the master, registered in this order. Add one line per feature. */
export const features: Feature[] = [
  sessionFeature,
  systemFeature,
  spidersFeature,
  projectsFeature,
  variablesFeature,
  usersFeature,
  tokensFeature,
  settingsFeature,
  databaseFeature,
  feedbackFeature,
  sitesFeature,
  statsFeature,
  executionFeature,
  nodesFeature,
  tasksFeature,
  scrapyFeature,
  gitFeature,
  schedulesFeature,
  webhooksFeature,
  notificationsFeature,
  configSpiderFeature,
  spiderStatsFeature,
  scrapyStatsFeature,
  metricsFeature,
  suspiciousFeature,
  deploysFeature,
  dataSourcesFeature,
  environmentsFeature,
  nodeInstallFeature,
  docsFeature,
  scrapydFeature,
];
