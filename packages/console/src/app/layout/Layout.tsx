/** Common layout: sidebar, navbar, tab strip and the kept-alive main area. */
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';
import { MOBILE_BREAKPOINT, MOBILE_TOLERANCE } from '@crawldeck/shared/core';
import { useAppStore } from '../stores/app.ts';
import Sidebar from './Sidebar.tsx';
import Navbar from './Navbar.tsx';
import TagsView from './TagsView.tsx';
import AppMain from './AppMain.tsx';
import ReleaseDialog from '../../features/release/ReleaseDialog.tsx';
import DocsDrawer from '../../features/docs/DocsDrawer.tsx';
import './layout.css';

export function isMobileWidth(): boolean {
  return document.body.getBoundingClientRect().width - MOBILE_TOLERANCE < MOBILE_BREAKPOINT;
}

export default function Layout() {
  const sidebar = useAppStore((s) => s.sidebar);
  const device = useAppStore((s) => s.device);
  const closeSidebar = useAppStore((s) => s.closeSidebar);
  const location = useLocation();
  const first = useRef(true);

  // Mounted narrow: mobile, menu closed without animation. Resize (page visible): recompute.
  useEffect(() => {
    const { toggleDevice, closeSidebar: close } = useAppStore.getState();
    if (isMobileWidth()) {
      toggleDevice('mobile');
      close(true);
    }
    const onResize = () => {
      if (document.hidden) return;
      const mobile = isMobileWidth();
      toggleDevice(mobile ? 'mobile' : 'desktop');
      if (mobile) close(true);
    };
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  // Mobile: a route change with the menu open closes it (animated).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const s = useAppStore.getState();
    if (s.device === 'mobile' && s.sidebar.opened) s.closeSidebar(false);
  }, [location.pathname]);

  const classes = [
    'app-wrapper',
    sidebar.opened ? 'openSidebar' : 'hideSidebar',
    sidebar.withoutAnimation ? 'withoutAnimation' : '',
    device === 'mobile' ? 'mobile' : 'desktop',
  ].join(' ');

  return (
    <div className={classes} data-device={device}>
      {device === 'mobile' && sidebar.opened && <div className="drawer-bg" onClick={() => closeSidebar(false)} />}
      <Sidebar />
      <div className="main-container">
        <div className="fixed-header">
          <Navbar />
          <TagsView />
        </div>
        <AppMain />
      </div>
      <ReleaseDialog />
      <DocsDrawer />
    </div>
  );
}
