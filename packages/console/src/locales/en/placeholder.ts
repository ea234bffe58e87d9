export default {
  home: { text: 'The dashboard (total tasks, active nodes, total deploys, daily new tasks) is not available yet.' },
  projects: { text: 'Project management is not available yet.' },
  spiders: { text: 'Spider management is not available yet.' },
  spiderDetail: {
    tabs: { overview: 'Overview', files: 'Files', environment: 'Environment', analytics: 'Analytics', rules: 'Rules', config: 'Config', deploys: 'Deploys', tasks: 'Tasks', schedules: 'Schedules' },
  },
  tasks: { text: 'The task list is not available yet.' },
  taskDetail: { tabs: { overview: 'Overview', log: 'Log', results: 'Results' } },
  schedules: { text: 'Schedule management is not available yet.' },
  nodes: { text: 'The node list is not available yet. Nodes are added by running the node service on the target machine; see the multi-node deployment documentation.' },
  nodeDetail: { tabs: { overview: 'Overview', installation: 'Installation', monitor: 'Monitor', network: 'Network' } },
  disclaimer: { text: 'The disclaimer is not available yet.' },
  feedback: { text: 'The feedback form (e-mail, chat-app account and content) is not available yet.' },
  users: { text: 'User management is not available yet.' },
  setting: { tabs: { general: 'General', notifications: 'Notifications', globalVariable: 'Global Variable', database: 'Database', password: 'Password' } },
  tabNotAvailable: 'The "{{tab}}" feature is not available yet.',
  id: 'ID',
};
