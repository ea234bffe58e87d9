// Everything the English console needs to speak English, one chunk loaded on demand by index.ts: its texts and
// antd's component texts (dayjs speaks English without a locale of its own).
import enUS from 'antd/es/locale/en_US';
import { areasOf, type LanguageBundle, type Messages } from './index.ts';

const bundle: LanguageBundle = {
  texts: areasOf(import.meta.glob<{ default: Messages }>('./en/*.ts', { eager: true })),
  antd: enUS,
  dayjs: 'en',
};
export default bundle;
