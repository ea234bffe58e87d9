export default {
  title: 'Home',
  cards: { tasks: 'Total Tasks', nodes: 'Active Nodes', deploys: 'Total Deploys', spiders: 'Spiders' },
  daily: 'Daily New Tasks (last 30 days)',
  status: 'Tasks by Status',
  tasks: 'Tasks',
  noTasks: 'No tasks yet',
  statuses: {
    pending: 'Pending',
    running: 'Running',
    finished: 'Finished',
    error: 'Error',
    cancelled: 'Cancelled',
    abnormal: 'Abnormal',
  },
};
