export default {
  title: '相关文档',
  empty: '暂无文档。',
};
