/**
 * i18n: every `src/locales/{zh,en}/<area>.ts` file (default export = nested key object) becomes the i18next
 * namespace `<area>`. Add an area by adding the two files; no registration needed. Both languages always
 * (locales.test.ts checks them through all.ts).
 *
 * Only the language in use is downloaded: each language is one chunk (bundle-<lang>.ts) with its texts, antd's
 * texts and dayjs's date names. The master names that chunk in index.html as a preload, chosen from the `lang`
 * cookie the console keeps next to its stored choice, so the first screen does not wait for it.
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Locale } from 'antd/es/locale';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@crawldeck/shared/core';

export type Messages = { [key: string]: string | Messages };

/** One language's chunk: the console's texts by area, antd's component texts and the dayjs locale name. */
export interface LanguageBundle {
  texts: Record<string, Messages>;
  antd: Locale;
  dayjs: string;
}

/** Area name → its texts, from the modules of one language folder. */
export function areasOf(modules: Record<string, { default: Messages }>): Record<string, Messages> {
  const areas: Record<string, Messages> = {};
  for (const [file, mod] of Object.entries(modules)) {
    const m = /\/([^/]+)\.ts$/.exec(file);
    if (m && !file.endsWith('.test.ts')) areas[m[1]] = mod.default;
  }
  return areas;
}

const chunks: Record<Language, () => Promise<{ default: LanguageBundle }>> = {
  en: () => import('./bundle-en.ts'),
  zh: () => import('./bundle-zh.ts'),
};

const loaded: Partial<Record<Language, LanguageBundle>> = {};

/** Loads a language's chunk (once) and hands its texts to i18next. */
export async function loadLanguage(lang: Language): Promise<LanguageBundle> {
  const known = loaded[lang];
  if (known) return known;
  const bundle = (await chunks[lang]()).default;
  for (const [area, messages] of Object.entries(bundle.texts)) i18n.addResourceBundle(lang, area, messages, true, true);
  loaded[lang] = bundle;
  return bundle;
}

/** A language whose chunk is loaded (every caller loads it before switching to it). */
export function loadedLanguage(lang: Language): LanguageBundle {
  const bundle = loaded[lang];
  if (!bundle) throw new Error(`the ${lang} texts are not loaded`);
  return bundle;
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
