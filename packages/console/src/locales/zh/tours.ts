/** 引导教程步骤：每个 data-tour 目标一项，见 src/features/tours/tours.ts。 */
export default {
  // spider-list
  'spider-list-search': {
    title: '搜索爬虫',
    desc: '输入爬虫名称的一部分并回车即可筛选列表。旁边的下拉框可按项目和类型筛选。',
  },
  'spider-list-table': {
    title: '爬虫列表',
    desc: '每个爬虫的类型、项目、执行命令和更新时间。点击名称进入详情页；勾选多行可批量删除。',
  },
  'spider-list-import': { title: '从 URL 导入', desc: '从公开的代码托管地址（例如 GitHub 仓库）导入爬虫。' },
  'spider-list-add': { title: '添加爬虫', desc: '创建自定义爬虫或可配置爬虫，可同时上传 zip 格式的爬虫文件。' },
  // spider-list-add
  'spider-add-name': { title: '名称', desc: '爬虫的唯一名称：字母、数字、点、短横线和下划线。' },
  'spider-add-display-name': { title: '显示名称', desc: '列表中显示的友好名称，留空则使用名称。' },
  'spider-add-type': { title: '类型', desc: '自定义爬虫运行你自己的命令和代码；可配置爬虫由“配置”标签中的规则描述。' },
  'spider-add-cmd': {
    title: '执行命令',
    desc: '节点运行任务时执行的命令，例如 “python main.py” 或 “scrapy crawl quotes”。',
  },
  'spider-add-col': { title: '结果集', desc: '保存该爬虫结果的位置，默认为 results_<名称>。' },
  'spider-add-project': { title: '项目', desc: '可选：把爬虫归入某个项目。' },
  'spider-add-public': { title: '公开', desc: '公开的爬虫所有用户可见，私有爬虫仅所有者和管理员可见。' },
  'spider-add-files': { title: '文件', desc: '拖入一个文件位于根目录的 zip 包，也可以稍后在“文件”标签中添加文件。' },
  'spider-add-submit': { title: '创建', desc: '创建爬虫。之后即可运行、定时调度并编辑它的文件。' },
  // spider-detail
  'spider-detail-title': { title: '爬虫详情', desc: '爬虫名称以及类型、项目、Git/Scrapy 标签。' },
  'spider-detail-tab-overview': { title: '概览', desc: '爬虫的主要字段，以及在所选节点上启动任务的“运行”按钮。' },
  'spider-detail-tab-files': { title: '文件', desc: '在内置编辑器中浏览和编辑爬虫文件；新建、重命名和删除文件。' },
  'spider-detail-tab-environment': { title: '环境', desc: '传给该爬虫每个任务的环境变量。' },
  'spider-detail-tab-analytics': { title: '数据分析', desc: '每天的任务数、成功率、运行时长和结果数。' },
  'spider-detail-tab-rules': { title: '规则', desc: '应用于结果的规则，例如去重。' },
  'spider-detail-tab-config': {
    title: '配置',
    desc: '可配置爬虫：阶段、选择器和字段；Scrapy 爬虫：设置、Items 和 Pipelines。',
  },
  'spider-detail-tab-deploys': { title: '部署', desc: '爬虫何时部署到了哪些节点，最新的在前。' },
  'spider-detail-tab-tasks': { title: '任务', desc: '该爬虫的任务及其状态，最新的在前。' },
  'spider-detail-tab-schedules': { title: '定时任务', desc: '运行该爬虫的 cron 定时任务，可在这里添加或修改。' },
  // spider-detail-config（可配置爬虫的“规则”标签，最后是“配置”标签）
  'config-extract-fields': { title: '提取字段', desc: '让平台根据起始页自动推测列表条目及其字段。' },
  'config-preview': { title: '预览', desc: '用当前表单抓取起始页，显示提取到的数据和抓取日志。' },
  'config-convert': { title: '转换为自定义爬虫', desc: '根据当前配置生成代码，把爬虫转换为自定义爬虫。' },
  'config-start-url': { title: '起始 URL', desc: '爬虫抓取的第一个页面。' },
  'config-start-stage': { title: '起始阶段', desc: '应用于起始页的阶段。' },
  'config-engine': { title: '引擎', desc: '页面的抓取和解析方式（CSS 和 XPath 选择器）。' },
  'config-settings': { title: '抓取设置', desc: '是否遵守 robots.txt、请求间隔、最大页数和 User-Agent。' },
  'config-stages': { title: '阶段', desc: '每个阶段读取一类页面：带条目和下一页选择器的列表页，或详情页。' },
  'config-fields': { title: '字段', desc: '阶段中的字段：名称、CSS 或 XPath 选择器、属性，以及可选的下一阶段。' },
  'config-add-field': { title: '添加字段', desc: '在该阶段中再添加一个要提取的字段。' },
  'config-add-stage': { title: '添加阶段', desc: '为字段链接到的页面（例如详情页）添加一个阶段。' },
  'config-save': { title: '保存', desc: '把表单保存为爬虫的 Spiderfile；“重置”会放弃未保存的修改。' },
  'config-yaml-tab': { title: '配置', desc: '以 Spiderfile（YAML）形式查看并直接编辑同一份配置；Ctrl/Cmd+S 保存。' },
  // task-list
  'task-list-title': { title: '任务', desc: '爬虫在节点上的每一次运行都会在这里显示为一个任务，最新的在前。' },
  'task-list-live': { title: '实时', desc: '列表会实时跟随任务变化，无需刷新页面。' },
  'task-list-filter': { title: '筛选', desc: '按节点、爬虫、状态和定时任务筛选任务。' },
  'task-list-refresh': { title: '刷新', desc: '立即重新加载列表。' },
  'task-list-table': {
    title: '任务列表',
    desc: '任务的爬虫、节点、状态、时间和结果数。点击任务查看日志和结果；勾选多行可批量取消、重新运行或删除。',
  },
  // task-detail
  'task-detail-back': { title: '返回', desc: '回到任务列表。' },
  'task-detail-title': { title: '任务详情', desc: '该任务的爬虫及其当前状态。' },
  'task-detail-id': { title: '任务 ID', desc: '任务的 ID，在 API 和日志中使用。' },
  'task-detail-restart': {
    title: '重新运行',
    desc: '用相同的设置再次运行该任务。任务运行中时这里还会出现“取消”按钮。',
  },
  'task-detail-delete': { title: '删除', desc: '删除该任务及其日志和结果。' },
  'task-detail-tab-overview': { title: '概览', desc: '状态、等待时长、运行时长、总时长、错误信息、爬虫和节点。' },
  'task-detail-tab-log': { title: '日志', desc: '任务日志，运行中实时更新，支持搜索、跳到下一个错误行和自动滚动。' },
  'task-detail-tab-results': { title: '结果', desc: '任务抓取到的数据，分页显示，可下载为 CSV 文件。' },
  // node-detail
  'node-detail-title': { title: '节点详情', desc: '节点名称及其类型（主节点或工作节点）和状态。' },
  'node-detail-tab-overview': {
    title: '概览',
    desc: 'ID、类型、状态、IP、主机名、操作系统、CPU 和运行中的任务；管理员可在此修改名称和描述。',
  },
  'node-detail-tab-installation': { title: '安装', desc: '在该节点上安装依赖和语言环境。' },
  'node-detail-tab-monitor': { title: '监控', desc: '节点资源使用情况随时间变化的图表。' },
  'node-detail-tab-network': { title: '网络', desc: '主节点和工作节点的关系图及其连接状态。' },
  // schedule-list
  'schedule-list-table': { title: '定时任务', desc: '每个定时任务按 cron 表达式运行一个爬虫；可在行内开启或关闭。' },
  'schedule-list-add': { title: '添加定时任务', desc: '为爬虫创建一个定时任务。' },
  // schedule-list-add
  'schedule-add-name': { title: '名称', desc: '定时任务的名称。' },
  'schedule-add-spider': { title: '爬虫', desc: '定时任务要运行的爬虫。' },
  'schedule-add-run-type': { title: '运行类型', desc: '在随机节点、所有节点或指定节点上运行。' },
  'schedule-add-cron': { title: 'Cron 表达式', desc: '六个字段：秒、分、时、日、月、周。下方会预览接下来的运行时间。' },
  'schedule-add-timezone': { title: '时区', desc: '解释 cron 表达式所用的时区。' },
  'schedule-add-param': { title: '参数', desc: '追加到爬虫命令后的额外参数。' },
  'schedule-add-retries': { title: '重试次数', desc: '运行失败后重试的次数（最多 5 次）。' },
  'schedule-add-description': { title: '描述', desc: '关于该定时任务的可选说明。' },
  'schedule-add-enabled': { title: '启用', desc: '只有启用的定时任务才会运行。保存即可创建。' },
  // setting
  'setting-tab-general': { title: '通用', desc: '开启或关闭教程，选择语言和默认分页大小。' },
  'setting-tab-notifications': { title: '消息通知', desc: '任务完成或失败时调用的 Webhook。' },
  'setting-tab-tokens': { title: 'API 令牌', desc: '为脚本和 API 创建令牌；令牌只显示一次。' },
};
