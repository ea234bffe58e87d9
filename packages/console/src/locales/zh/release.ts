export default {
  title: '版本',
  tabs: { releaseNote: '更新说明', howToUpgrade: '如何升级' },
  upgrade: '升级',
  newVersion: '新版本 {{name}}',
  available: '当前运行的是 v{{current}}，可升级到 {{latest}}。',
  upToDate: '当前已是最新版本（v{{current}}）。',
  noRelease: '暂无版本信息。',
  howTo: {
    dockerTitle: 'Docker 部署',
    docker: '拉取最新镜像，然后停止并重新启动容器（down 后再 up）。',
    directTitle: '直接部署',
    direct: '拉取最新源代码，重新构建前端和后端，然后启动它们。',
  },
};
