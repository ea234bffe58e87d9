export default {
  home: { text: '仪表盘（任务总数、活跃节点、部署总数、每日新增任务）暂未开放。' },
  projects: { text: '项目管理暂未开放。' },
  spiders: { text: '爬虫管理暂未开放。' },
  spiderDetail: {
    tabs: { overview: '概览', files: '文件', environment: '环境', analytics: '分析', rules: '规则', config: '配置', deploys: '部署', tasks: '任务', schedules: '定时任务' },
  },
  tasks: { text: '任务列表暂未开放。' },
  taskDetail: { tabs: { overview: '概览', log: '日志', results: '结果' } },
  schedules: { text: '定时任务管理暂未开放。' },
  nodes: { text: '节点列表暂未开放。节点需在目标机器上运行节点服务来添加，请参阅多节点部署文档。' },
  nodeDetail: { tabs: { overview: '概览', installation: '安装', monitor: '监控', network: '网络' } },
  disclaimer: { text: '免责声明内容暂未开放。' },
  feedback: { text: '反馈表单（邮箱、聊天账号与内容）暂未开放。' },
  users: { text: '用户管理暂未开放。' },
  setting: { tabs: { general: '通用', notifications: '消息通知', globalVariable: '全局变量', database: '数据库', password: '密码' } },
  tabNotAvailable: '「{{tab}}」功能暂未开放。',
  id: 'ID',
};
