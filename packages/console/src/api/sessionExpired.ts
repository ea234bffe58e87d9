/**
 * The one re-login dialog shown when the server answers 401 to a signed-in user. While it is open no error toast
 * is shown behind it: the toasts already on screen are closed and new ones are held back, since every failure
 * then has the same cause the dialog explains.
 */
import { Modal } from 'antd';
import { toasts } from './toasts.ts';
import i18n from '../locales/index.ts';

let dialogOpen = false;
const NO_DIALOG_PATHS = ['/login', '/signup', '/'];

/** True while the re-login dialog is on screen. */
export function sessionDialogOpen(): boolean {
  return dialogOpen;
}

/** Opens the re-login dialog once; returns whether it is (now) open. */
export function showSessionExpired(): boolean {
  // Nothing to log out from without a token; never on the login, sign-up or root pages.
  const signedIn = !!localStorage.getItem('token');
  if (dialogOpen || !signedIn || NO_DIALOG_PATHS.includes(window.location.pathname)) return dialogOpen;
  dialogOpen = true;
  toasts().destroy();
  Modal.confirm({
    title: i18n.t('common:request.confirmLogoutTitle'),
    content: i18n.t('common:request.confirmLogoutText'),
    okText: i18n.t('common:confirm'),
    cancelText: i18n.t('common:cancel'),
    className: 'relogin-dialog',
    onOk: () => {
      localStorage.removeItem('token');
      window.location.reload();
    },
    afterClose: () => {
      dialogOpen = false;
    },
  });
  return true;
}
