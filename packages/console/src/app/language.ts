import dayjs from 'dayjs';
import Cookies from 'js-cookie';
import { LANGUAGE_COOKIE, type Language } from '@crawldeck/shared/core';
import i18n, { loadLanguage, loadedLanguage } from '../locales/index.ts';
import { useAppStore } from './stores/app.ts';
import { sendEvent } from './stats.ts';

/**
 * Puts a loaded language in use: texts, dayjs dates and the document's language. The choice is also kept in a
 * cookie for a year, so the master preloads this language's chunk with index.html on the next visit.
 */
export function applyLanguage(lang: Language): void {
  dayjs.locale(loadedLanguage(lang).dayjs);
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  if (Cookies.get(LANGUAGE_COOKIE) !== lang)
    Cookies.set(LANGUAGE_COOKIE, lang, { expires: 365, path: '/', sameSite: 'lax' });
  if (i18n.language !== lang) void i18n.changeLanguage(lang);
}

/**
 * Language dropdown / login switch, without a reload: fetch the language's chunk, then persist under `lang` and
 * switch texts, antd and dayjs together, and report it. A chunk that fails to download leaves the console as it is.
 */
export function switchLanguage(lang: Language): void {
  loadLanguage(lang).then(
    () => {
      useAppStore.getState().setLanguage(lang);
      applyLanguage(lang);
      void sendEvent('language_switch', { language: lang });
    },
    () => undefined,
  );
}
