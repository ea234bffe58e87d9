export default {
  title: 'Related Documentation',
  empty: 'No documentation is available.',
};
