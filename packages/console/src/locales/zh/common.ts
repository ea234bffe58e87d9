export default {
  productName: 'Crawldeck',
  confirm: '确认',
  cancel: '取消',
  ok: '确定',
  save: '保存',
  notAvailable: '该功能暂未开放，敬请期待。',
  comingSoon: '即将上线',
  screenError: '页面加载或渲染出错',
  reload: '重新加载',
  fetchError: '获取数据时发生错误',
  request: {
    requestError: '请求错误',
    noResponse: '服务器无响应，网络异常。请确认服务器正常运行……',
    confirmLogoutTitle: '确认登出',
    confirmLogoutText: '您已被登出，可以取消以留在本页，或重新登录',
  },
  languages: { zh: '中文', en: 'English' },
};
