export default {
  title: 'Release',
  tabs: { releaseNote: 'Release Note', howToUpgrade: 'How to Upgrade' },
  upgrade: 'Upgrade',
  newVersion: 'New version {{name}}',
  available: 'You are running v{{current}}; {{latest}} is available.',
  upToDate: 'You are running the latest version (v{{current}}).',
  noRelease: 'No release information is available.',
  howTo: {
    backupTitle: 'Before you upgrade',
    backup:
      'Back up the data directory (and the PostgreSQL database when you use one). The master migrates the database when it starts.',
    directTitle: 'Upgrade the master, then the worker nodes',
    direct:
      'Stop the master, update the code, install the dependencies and start it again; then update and restart each worker node the same way.',
  },
};
