import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { loadLanguage } from './locales/index.ts';
import { ensureIds, startup } from './app/startup.ts';
import { applyLanguage } from './app/language.ts';
import { useAppStore } from './app/stores/app.ts';
import App from './app/App.tsx';

ensureIds();
const language = useAppStore.getState().language;
// The language in use is a chunk of its own, which index.html preloads: the first render waits for it.
void loadLanguage(language).then(() => {
  applyLanguage(language);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
  void startup();
});
