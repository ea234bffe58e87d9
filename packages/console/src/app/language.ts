import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import type { Language } from '@crawldeck/shared';
import i18n from '../locales/index.ts';
import { useAppStore } from './stores/app.ts';
import { sendEvent } from './stats.ts';

export function applyLanguage(lang: Language): void {
  dayjs.locale(lang === 'zh' ? 'zh-cn' : 'en');
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  if (i18n.language !== lang) void i18n.changeLanguage(lang);
}

/** Language dropdown / login switch: persist under `lang`, switch i18n, antd and dayjs locales, report it. */
export function switchLanguage(lang: Language): void {
  useAppStore.getState().setLanguage(lang);
  applyLanguage(lang);
  void sendEvent('language_switch', { language: lang });
}
