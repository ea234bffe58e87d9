import { useEffect } from 'react';
import { useBlocker } from 'react-router';

/** Registered only while there are unsaved changes (a router supports one blocker at a time). */
export default function UnsavedBlocker({ onBlocked }: { onBlocked: (proceed: () => void, reset: () => void) => void }) {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (blocker.state === 'blocked')
      onBlocked(
        () => blocker.proceed(),
        () => blocker.reset(),
      );
  }, [blocker, onBlocked]);
  useEffect(() => {
    const handler = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', handler);
    return () => window.removeEventListener('beforeunload', handler);
  }, []);
  return null;
}
