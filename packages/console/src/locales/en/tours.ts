/** Guided tour steps: one entry per data-tour target, see src/features/tours/tours.ts. */
export default {
  // spider-list
  'spider-list-search': {
    title: 'Search spiders',
    desc: 'Type part of a spider name and press Enter to filter the list. The selects next to it filter by project and by type.',
  },
  'spider-list-table': {
    title: 'Spider list',
    desc: 'Every spider with its type, project, command and last update. Click a name to open its detail page; tick rows for batch delete.',
  },
  'spider-list-import': {
    title: 'Import from a URL',
    desc: 'Import a spider from a public code-hosting URL, for example a GitHub repository.',
  },
  'spider-list-add': {
    title: 'Add a spider',
    desc: 'Create a customized or configurable spider, optionally uploading its files as a zip.',
  },
  // spider-list-add
  'spider-add-name': { title: 'Name', desc: 'Unique name of the spider: letters, digits, dot, dash and underscore.' },
  'spider-add-display-name': {
    title: 'Display name',
    desc: 'Optional friendlier name shown in lists; the name is used when empty.',
  },
  'spider-add-type': {
    title: 'Type',
    desc: 'Customized spiders run your own command and code; configurable spiders are described by rules in the Config tab.',
  },
  'spider-add-cmd': {
    title: 'Execute command',
    desc: 'The command a node runs for a task, e.g. "python main.py" or "scrapy crawl quotes".',
  },
  'spider-add-col': {
    title: 'Results collection',
    desc: 'Where the results of this spider are stored; defaults to results_<name>.',
  },
  'spider-add-project': { title: 'Project', desc: 'Optionally group the spider in a project.' },
  'spider-add-public': {
    title: 'Public',
    desc: 'Public spiders are visible to every user, private ones only to their owner and admins.',
  },
  'spider-add-files': {
    title: 'Files',
    desc: 'Drop a zip with the spider files at its root, or add files later in the Files tab.',
  },
  'spider-add-submit': {
    title: 'Create',
    desc: 'Create the spider. You can then run it, schedule it and edit its files.',
  },
  // spider-detail
  'spider-detail-title': {
    title: 'Spider detail',
    desc: 'The spider name with its type, project and Git/Scrapy tags.',
  },
  'spider-detail-tab-overview': {
    title: 'Overview',
    desc: 'Main fields of the spider and the Run button to start a task on chosen nodes.',
  },
  'spider-detail-tab-files': {
    title: 'Files',
    desc: 'Browse and edit the spider files in the built-in editor; create, rename and delete files.',
  },
  'spider-detail-tab-environment': {
    title: 'Environment',
    desc: 'Environment variables passed to every task of this spider.',
  },
  'spider-detail-tab-analytics': {
    title: 'Analytics',
    desc: 'Task counts, success rate, durations and results per day.',
  },
  'spider-detail-tab-rules': { title: 'Rules', desc: 'Rules applied to the results, such as deduplication.' },
  'spider-detail-tab-config': {
    title: 'Config',
    desc: 'For configurable spiders: stages, selectors and fields; for Scrapy spiders: settings, items and pipelines.',
  },
  'spider-detail-tab-deploys': {
    title: 'Deploys',
    desc: 'Where and when the spider was deployed to nodes, newest first.',
  },
  'spider-detail-tab-tasks': { title: 'Tasks', desc: 'The tasks of this spider with their status, newest first.' },
  'spider-detail-tab-schedules': {
    title: 'Schedules',
    desc: 'Cron schedules that run this spider; add or edit them here.',
  },
  // spider-detail-config (Rules tab of a configurable spider, then the Config tab)
  'config-extract-fields': {
    title: 'Extract fields',
    desc: 'Let the platform guess the list items and their fields from the start page.',
  },
  'config-preview': {
    title: 'Preview',
    desc: 'Crawl the start page with the current form and show the extracted rows and the crawl log.',
  },
  'config-convert': {
    title: 'Convert to customized',
    desc: 'Generate code from this configuration and turn the spider into a customized one.',
  },
  'config-start-url': { title: 'Start URL', desc: 'The first page the spider fetches.' },
  'config-start-stage': { title: 'Start stage', desc: 'The stage applied to the start page.' },
  'config-engine': { title: 'Engine', desc: 'How pages are fetched and read (CSS and XPath selectors).' },
  'config-settings': {
    title: 'Crawl settings',
    desc: 'Obey robots.txt, delay between requests, maximum pages and the User-Agent.',
  },
  'config-stages': {
    title: 'Stages',
    desc: 'Each stage reads one kind of page: a list with its item and next-page selectors, or a detail page.',
  },
  'config-fields': {
    title: 'Fields',
    desc: 'The fields of a stage: a name, a CSS or XPath selector, an attribute, and optionally the stage to follow.',
  },
  'config-add-field': { title: 'Add field', desc: 'Add another field to extract in this stage.' },
  'config-add-stage': { title: 'Add stage', desc: 'Add a stage for the pages a field links to, such as detail pages.' },
  'config-save': { title: 'Save', desc: "Save the form as the spider's Spiderfile; Reset drops unsaved changes." },
  'config-yaml-tab': {
    title: 'Config',
    desc: 'The same configuration as a Spiderfile (YAML) you can edit directly; Ctrl/Cmd+S saves.',
  },
  // task-list
  'task-list-title': { title: 'Tasks', desc: 'Every run of a spider on a node appears here as a task, newest first.' },
  'task-list-live': { title: 'Live', desc: 'The list follows task changes as they happen; no need to reload.' },
  'task-list-filter': { title: 'Filters', desc: 'Filter tasks by node, spider, status and schedule.' },
  'task-list-refresh': { title: 'Refresh', desc: 'Reload the list now.' },
  'task-list-table': {
    title: 'Task list',
    desc: 'Tasks with spider, node, status, times and result counts. Click one for its log and results; tick rows to cancel, restart or delete them together.',
  },
  // task-detail
  'task-detail-back': { title: 'Back', desc: 'Return to the task list.' },
  'task-detail-title': { title: 'Task detail', desc: 'The spider of this task and its current status.' },
  'task-detail-id': { title: 'Task id', desc: 'The id of the task, used in the API and in logs.' },
  'task-detail-restart': {
    title: 'Restart',
    desc: 'Run the task again with the same settings. While a task runs, a Cancel button appears here too.',
  },
  'task-detail-delete': { title: 'Delete', desc: 'Delete the task with its log and results.' },
  'task-detail-tab-overview': {
    title: 'Overview',
    desc: 'Status, wait, runtime and total durations, error message, spider and node.',
  },
  'task-detail-tab-log': {
    title: 'Log',
    desc: 'The task log, updated while it runs, with search, jump to the next error line and auto-scroll.',
  },
  'task-detail-tab-results': {
    title: 'Results',
    desc: 'The items the task collected, page by page, downloadable as a CSV file.',
  },
  // node-detail
  'node-detail-title': { title: 'Node detail', desc: 'The node name with its type (master or worker) and its status.' },
  'node-detail-tab-overview': {
    title: 'Overview',
    desc: 'Id, type, status, IP, host name, OS, CPUs and running tasks; admins edit the name and description here.',
  },
  'node-detail-tab-installation': { title: 'Installation', desc: 'Install dependencies and languages on this node.' },
  'node-detail-tab-monitor': { title: 'Monitor', desc: "Charts of the node's resource usage over time." },
  'node-detail-tab-network': {
    title: 'Network',
    desc: 'A graph of the master and worker nodes and whether they are connected.',
  },
  // schedule-list
  'schedule-list-table': {
    title: 'Schedules',
    desc: 'Each schedule runs a spider by cron expression; switch it on or off in its row.',
  },
  'schedule-list-add': { title: 'Add a schedule', desc: 'Create a schedule for a spider.' },
  // schedule-list-add
  'schedule-add-name': { title: 'Name', desc: 'A name for the schedule.' },
  'schedule-add-spider': { title: 'Spider', desc: 'The spider the schedule runs.' },
  'schedule-add-run-type': { title: 'Run type', desc: 'Run on a random node, on all nodes or on selected nodes.' },
  'schedule-add-cron': {
    title: 'Cron expression',
    desc: 'Six fields: second, minute, hour, day of month, month, day of week. The next runs are previewed below.',
  },
  'schedule-add-timezone': { title: 'Time zone', desc: 'The time zone the cron expression is read in.' },
  'schedule-add-param': { title: 'Parameters', desc: 'Extra arguments appended to the spider command.' },
  'schedule-add-retries': { title: 'Retries', desc: 'How many times a failed run is retried (at most 5).' },
  'schedule-add-description': { title: 'Description', desc: 'An optional note about the schedule.' },
  'schedule-add-enabled': { title: 'Enabled', desc: 'Only enabled schedules run. Save to create the schedule.' },
  // setting
  'setting-tab-general': {
    title: 'General',
    desc: 'Switch the tutorial on or off, choose the language and the default page sizes.',
  },
  'setting-tab-notifications': { title: 'Notifications', desc: 'Webhooks called when tasks finish or fail.' },
  'setting-tab-tokens': {
    title: 'API tokens',
    desc: 'Create tokens for scripts and the API; a token is shown only once.',
  },
};
