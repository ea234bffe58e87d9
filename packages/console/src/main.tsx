import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { loadLanguage } from './locales/index.ts';
import { ensureIds, startup } from './app/startup.ts';
import { applyLanguage } from './app/language.ts';
import { useAppStore } from './app/stores/app.ts';
import App from './app/App.tsx';

ensureIds();
const language = useAppStore.getState().language;
applyLanguage(language);
// The texts of the language in use come as a chunk of their own: the first render waits for them.
void loadLanguage(language).finally(() => {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
  void startup();
});
