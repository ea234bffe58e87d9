export default {
  title: '版本',
  tabs: { releaseNote: '更新说明', howToUpgrade: '如何升级' },
  upgrade: '升级',
  newVersion: '新版本 {{name}}',
  available: '当前运行的是 v{{current}}，可升级到 {{latest}}。',
  upToDate: '当前已是最新版本（v{{current}}）。',
  noRelease: '暂无版本信息。',
  howTo: {
    backupTitle: '升级之前',
    backup: '备份数据目录（使用 PostgreSQL 时也备份数据库）。主节点启动时会自动迁移数据库。',
    directTitle: '先升级主节点，再升级工作节点',
    direct: '停止主节点，更新代码，安装依赖后重新启动；然后用同样的方式逐个更新并重启工作节点。',
  },
};
