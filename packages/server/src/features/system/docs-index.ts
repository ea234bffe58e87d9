/**
 * The documentation map GET /docs serves: paths ending in / are sections, .html paths are
 * pages of the section named by their first segment. The console's Related Documentation drawer maps routes
 * to these topics.
 */
export function docsIndex(base: string): Record<string, { title: string; url: string }> {
  const b = base.replace(/\/$/, '');
  const page = (p: string) => `${b}${p}`;
  return {
    '/project/': { title: 'Project', url: page('/project/') },
    '/project/index.html': { title: 'Manage projects', url: page('/project/index.html') },
    '/spider/': { title: 'Spider', url: page('/spider/') },
    '/spider/index.html': { title: 'Spiders overview', url: page('/spider/index.html') },
    '/spider/upload.html': { title: 'Upload a spider', url: page('/spider/upload.html') },
    '/spider/files.html': { title: 'Edit spider files', url: page('/spider/files.html') },
    '/sdk/': { title: 'SDK', url: page('/sdk/') },
    '/sdk/python.html': { title: 'Python SDK', url: page('/sdk/python.html') },
    '/sdk/node.html': { title: 'Node.js SDK', url: page('/sdk/node.html') },
    '/integration/': { title: 'Integration', url: page('/integration/') },
    '/integration/scrapy.html': { title: 'Scrapy', url: page('/integration/scrapy.html') },
    '/ci-git/': { title: 'CI-Git', url: page('/ci-git/') },
    '/ci-git/index.html': { title: 'Git spiders', url: page('/ci-git/index.html') },
    '/task/': { title: 'Task', url: page('/task/') },
    '/task/index.html': { title: 'Tasks, logs and results', url: page('/task/index.html') },
    '/schedule/': { title: 'Schedule', url: page('/schedule/') },
    '/schedule/index.html': { title: 'Cron schedules', url: page('/schedule/index.html') },
    '/node/': { title: 'Node', url: page('/node/') },
    '/node/multi-node.html': { title: 'Multi-node deployment', url: page('/node/multi-node.html') },
    '/notification/': { title: 'Notification', url: page('/notification/') },
    '/notification/webhook.html': { title: 'Webhooks', url: page('/notification/webhook.html') },
  };
}
