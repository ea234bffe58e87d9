export default {
  toggleSidebar: 'Toggle sidebar',
  user: 'User',
  logout: 'Logout',
  language: 'Language',
  superAdmin: 'Super Admin',
  normalUser: 'Normal User',
  joinGroup: 'Join the discussion group',
  joinGroupText:
    'Scan the QR code below with the chat app to join the Crawldeck discussion group and talk with other users and the developers.',
  qrAlt: 'Discussion group QR code',
  tags: {
    refresh: 'Refresh',
    close: 'Close',
    closeOthers: 'Close Others',
    closeAll: 'Close All',
  },
  notFound: {
    title: '404',
    text: 'Sorry, the page you visited does not exist.',
    back: 'Back Home',
  },
};
