export default {
  title: '主页',
  cards: { tasks: '总任务数', nodes: '在线节点', deploys: '总部署数', spiders: '爬虫数' },
  daily: '每日新增任务（最近 30 天）',
  status: '任务状态分布',
  tasks: '任务数',
  noTasks: '暂无任务',
  statuses: {
    pending: '待定',
    running: '进行中',
    finished: '已完成',
    error: '错误',
    cancelled: '已取消',
    abnormal: '异常',
  },
};
