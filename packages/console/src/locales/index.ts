/**
 * i18n: every `src/locales/{zh,en}/<area>.ts` file (default export = nested key object) becomes the i18next
 * namespace `<area>`. Add an area by adding the two files; no registration needed. Both languages always.
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@crawldeck/shared/core';

export type Messages = { [key: string]: string | Messages };

const modules = import.meta.glob<{ default: Messages }>('./*/*.ts', { eager: true });

export const resources: Record<string, Record<string, Messages>> = {};
for (const [file, mod] of Object.entries(modules)) {
  const m = /^\.\/([^/]+)\/([^/]+)\.ts$/.exec(file);
  if (!m || file.endsWith('.test.ts')) continue;
  const [, lang, area] = m;
  (resources[lang] ??= {})[area] = mod.default;
}

export const namespaces = Array.from(new Set(Object.values(resources).flatMap((r) => Object.keys(r))));

function initialLanguage(): Language {
  const stored = typeof localStorage !== 'undefined' ? localStorage.getItem('lang') : null;
  return (LANGUAGES as readonly string[]).includes(stored ?? '') ? (stored as Language) : DEFAULT_LANGUAGE;
}

if (!i18n.isInitialized) {
  void i18n.use(initReactI18next).init({
    resources,
    lng: initialLanguage(),
    fallbackLng: DEFAULT_LANGUAGE,
    ns: namespaces,
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
    initImmediate: false,
    showSupportNotice: false,
  } as Parameters<typeof i18n.init>[0]);
}

export default i18n;
