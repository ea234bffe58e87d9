export default {
  toggleSidebar: '展开/收起侧边栏',
  user: '用户',
  logout: '退出登录',
  language: '语言',
  superAdmin: '超级管理员',
  normalUser: '普通用户',
  joinGroup: '加入交流群',
  joinGroupText: '使用聊天应用扫描下方二维码，加入 Crawldeck 交流群，与其他用户和开发者讨论问题。',
  qrAlt: '交流群二维码',
  tags: {
    refresh: '刷新',
    close: '关闭',
    closeOthers: '关闭其他',
    closeAll: '关闭所有',
  },
  notFound: {
    title: '404',
    text: '抱歉，您访问的页面不存在。',
    back: '返回主页',
  },
};
