import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './locales/index.ts';
import { ensureIds, startup } from './app/startup.ts';
import { applyLanguage } from './app/language.ts';
import { useAppStore } from './app/stores/app.ts';
import App from './app/App.tsx';

ensureIds();
applyLanguage(useAppStore.getState().language);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
void startup();
