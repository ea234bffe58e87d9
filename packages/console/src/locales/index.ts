/**
 * i18n: every `src/locales/{zh,en}/<area>.ts` file (default export = nested key object) becomes the i18next
 * namespace `<area>`. Add an area by adding the two files; no registration needed. Both languages always
 * (locales.test.ts checks them through all.ts).
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@crawldeck/shared/core';

export type Messages = { [key: string]: string | Messages };

/** Area name → its texts, from the modules of one language folder. */
export function areasOf(modules: Record<string, { default: Messages }>): Record<string, Messages> {
  const areas: Record<string, Messages> = {};
  for (const [file, mod] of Object.entries(modules)) {
    const m = /\/([^/]+)\.ts$/.exec(file);
    if (m && !file.endsWith('.test.ts')) areas[m[1]] = mod.default;
  }
  return areas;
}

// Only the language in use is downloaded: each language's texts are one chunk, loaded before the first render
// (main.tsx) and on a language switch (app/language.ts).
const bundles: Record<Language, () => Promise<{ default: Record<string, Messages> }>> = {
  en: () => import('./bundle-en.ts'),
  zh: () => import('./bundle-zh.ts'),
};

/** Loads a language's texts into i18next (once). */
export async function loadLanguage(lang: Language): Promise<void> {
  if (i18n.hasResourceBundle(lang, 'common')) return;
  const areas = (await bundles[lang]()).default;
  for (const [area, messages] of Object.entries(areas)) i18n.addResourceBundle(lang, area, messages, true, true);
}

function initialLanguage(): Language {
  const stored = typeof localStorage !== 'undefined' ? localStorage.getItem('lang') : null;
  return (LANGUAGES as readonly string[]).includes(stored ?? '') ? (stored as Language) : DEFAULT_LANGUAGE;
}

if (!i18n.isInitialized) {
  void i18n.use(initReactI18next).init({
    resources: {},
    partialBundledLanguages: true,
    lng: initialLanguage(),
    fallbackLng: DEFAULT_LANGUAGE,
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
    initImmediate: false,
    showSupportNotice: false,
  } as Parameters<typeof i18n.init>[0]);
}

export default i18n;
