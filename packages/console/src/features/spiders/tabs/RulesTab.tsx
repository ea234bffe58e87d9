// Spider detail "Rules" tab: owned by another feature; replace this whole file (keep the default export and props).
import PlaceholderPanel from './PlaceholderPanel.tsx';
import type { SpiderTabProps } from './types.ts';

export default function RulesTab(_props: SpiderTabProps) {
  return <PlaceholderPanel tab="rules" />;
}
