import type { EngineMigration } from '../migrate.ts';
import { m2026112201_session } from './2026112201_session.ts';
import { m2026112202_spiders } from './2026112202_spiders.ts';
import { m2026112203_tasks } from './2026112203_tasks.ts';
import { m2026112204_sites } from './2026112204_sites.ts';
import { m2026112205_schedules } from './2026112205_schedules.ts';
import { m2026112207_git } from './2026112207_git.ts';
import { m2026112208_collections } from './2026112208_collections.ts';
import { m2026112220_webhook_outbox } from './2026112220_webhook_outbox.ts';
import { m2026120950_notifications } from './2026120950_notifications.ts';
import { m2026121020_retry_backoff } from './2026121020_retry_backoff.ts';
import { m2026121030_node_resource_rules } from './2026121030_node_resource_rules.ts';
import { m2026121000_node_credentials } from './2026121000_node_credentials.ts';
import { m2026112330_node_metrics_ts } from './2026112330_node_metrics_ts.ts';
import { m2026112230_scrapy_stats } from './2026112230_scrapy_stats.ts';
import { m2026112231_task_suspicious } from './2026112231_task_suspicious.ts';
import { m2026112230_datasources } from './2026112230_datasources.ts';
import { m2026112301_environments } from './2026112301_environments.ts';
import { m2026112410_list_keys } from './2026112410_list_keys.ts';
import { m2026112420_log_search } from './2026112420_log_search.ts';
import { m2026112630_log_index_file } from './2026112630_log_index_file.ts';
import { m2026112650_task_status_counts } from './2026112650_task_status_counts.ts';
import { m2026112720_tasks_spider_status } from './2026112720_tasks_spider_status.ts';
import { m2026112721_spider_purges } from './2026112721_spider_purges.ts';
import { m2026112722_task_log_behind } from './2026112722_task_log_behind.ts';
import { m2026112740_task_output_by_trigger } from './2026112740_task_output_by_trigger.ts';
import { m2026112741_task_logs_error_index } from './2026112741_task_logs_error_index.ts';
import { m2026112800_task_spider_counts } from './2026112800_task_spider_counts.ts';
import { m2026112900_task_output_by_statement } from './2026112900_task_output_by_statement.ts';
import { m2026112930_tasks_partial_indexes } from './2026112930_tasks_partial_indexes.ts';
import { m2026120700_spider_limits } from './2026120700_spider_limits.ts';
import { m2026113000_log_chunks } from './2026113000_log_chunks.ts';
import { m2026120730_datasource_identity } from './2026120730_datasource_identity.ts';
import { m2026120810_task_priority } from './2026120810_task_priority.ts';
import { m2026120811_task_timeout } from './2026120811_task_timeout.ts';
import { m2026120830_env_job_deadline } from './2026120830_env_job_deadline.ts';
import { m2026120831_task_targets_source } from './2026120831_task_targets_source.ts';
import { m2026120890_task_minute_counts } from './2026120890_task_minute_counts.ts';
import { m2026120930_scrapyd } from './2026120930_scrapyd.ts';
import { m2026120920_queue_limits } from './2026120920_queue_limits.ts';

/** Every migration by name; Kysely runs them in name order. Add one line per new migration file. */
export const migrations: Record<string, EngineMigration> = {
  '2026112201_session': m2026112201_session,
  '2026112202_spiders': m2026112202_spiders,
  '2026112203_tasks': m2026112203_tasks,
  '2026112204_sites': m2026112204_sites,
  '2026112205_schedules': m2026112205_schedules,
  '2026112207_git': m2026112207_git,
  '2026112208_collections': m2026112208_collections,
  '2026112220_webhook_outbox': m2026112220_webhook_outbox,
  '2026112330_node_metrics_ts': m2026112330_node_metrics_ts,
  '2026112230_scrapy_stats': m2026112230_scrapy_stats,
  '2026112231_task_suspicious': m2026112231_task_suspicious,
  '2026112230_datasources': m2026112230_datasources,
  '2026112301_environments': m2026112301_environments,
  '2026112410_list_keys': m2026112410_list_keys,
  '2026112420_log_search': m2026112420_log_search,
  '2026112630_log_index_file': m2026112630_log_index_file,
  '2026112650_task_status_counts': m2026112650_task_status_counts,
  '2026112720_tasks_spider_status': m2026112720_tasks_spider_status,
  '2026112721_spider_purges': m2026112721_spider_purges,
  '2026112722_task_log_behind': m2026112722_task_log_behind,
  '2026112740_task_output_by_trigger': m2026112740_task_output_by_trigger,
  '2026112741_task_logs_error_index': m2026112741_task_logs_error_index,
  '2026112800_task_spider_counts': m2026112800_task_spider_counts,
  '2026112900_task_output_by_statement': m2026112900_task_output_by_statement,
  '2026112930_tasks_partial_indexes': m2026112930_tasks_partial_indexes,
  '2026113000_log_chunks': m2026113000_log_chunks,
  '2026120700_spider_limits': m2026120700_spider_limits,
  '2026120730_datasource_identity': m2026120730_datasource_identity,
  '2026120810_task_priority': m2026120810_task_priority,
  '2026120811_task_timeout': m2026120811_task_timeout,
  '2026120830_env_job_deadline': m2026120830_env_job_deadline,
  '2026120831_task_targets_source': m2026120831_task_targets_source,
  '2026120890_task_minute_counts': m2026120890_task_minute_counts,
  '2026120920_queue_limits': m2026120920_queue_limits,
  '2026120930_scrapyd': m2026120930_scrapyd,
  '2026120950_notifications': m2026120950_notifications,
  '2026121000_node_credentials': m2026121000_node_credentials,
  '2026121020_retry_backoff': m2026121020_retry_backoff,
  '2026121030_node_resource_rules': m2026121030_node_resource_rules,
};
