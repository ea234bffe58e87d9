export default {
  productName: 'Crawldeck',
  confirm: 'Confirm',
  cancel: 'Cancel',
  ok: 'OK',
  save: 'Save',
  notAvailable: 'This feature is not available yet.',
  comingSoon: 'Coming soon',
  screenError: 'This screen failed to load or render',
  reload: 'Reload',
  fetchError: 'An error happened when fetching the data',
  request: {
    requestError: 'Request Error',
    noResponse: 'No response from the server. Please make sure your server is running correctly...',
    confirmLogoutTitle: 'Confirm logout',
    confirmLogoutText: 'You have been logged out, you can cancel to stay on this page, or log in again',
  },
  languages: { zh: '中文', en: 'English' },
};
