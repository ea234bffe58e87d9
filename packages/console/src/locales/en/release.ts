export default {
  title: 'Release',
  tabs: { releaseNote: 'Release Note', howToUpgrade: 'How to Upgrade' },
  upgrade: 'Upgrade',
  newVersion: 'New version {{name}}',
  available: 'You are running v{{current}}; {{latest}} is available.',
  upToDate: 'You are running the latest version (v{{current}}).',
  noRelease: 'No release information is available.',
  howTo: {
    dockerTitle: 'Docker deployment',
    docker: 'Pull the latest image, then bring the containers down and up again.',
    directTitle: 'Direct deployment',
    direct: 'Pull the latest source code, rebuild the front end and the back end, then start them.',
  },
};
