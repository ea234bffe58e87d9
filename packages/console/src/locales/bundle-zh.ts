// Everything the Chinese console needs to speak Chinese, one chunk loaded on demand by index.ts: its texts,
// antd's component texts and dayjs's date names (registered with dayjs on import).
import 'dayjs/locale/zh-cn';
import zhCN from 'antd/es/locale/zh_CN';
import { areasOf, type LanguageBundle, type Messages } from './index.ts';

const bundle: LanguageBundle = {
  texts: areasOf(import.meta.glob<{ default: Messages }>('./zh/*.ts', { eager: true })),
  antd: zhCN,
  dayjs: 'zh-cn',
};
export default bundle;
