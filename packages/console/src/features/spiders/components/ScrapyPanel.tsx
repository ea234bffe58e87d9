/**
 * Scrapy project panel of the spider detail: the project's spiders, its settings, items and pipelines, each
 * section in a tab of its own, mounted when first opened.
 */
import { useState, type ReactNode } from 'react';
import { Card, Space, Tabs } from 'antd';
import { BugOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ScrapySection } from '../toolsApi.ts';
import type { Spider } from '../types.ts';
import ItemsSection from './scrapy/ItemsSection.tsx';
import PipelinesSection from './scrapy/PipelinesSection.tsx';
import SettingsSection from './scrapy/SettingsSection.tsx';
import SpidersSection from './scrapy/SpidersSection.tsx';
import './tools.css';

export default function ScrapyPanel({ spider }: { spider: Spider }) {
  const { t } = useTranslation('scrapy');
  const [tab, setTab] = useState<ScrapySection>('spiders');
  // mounted lazily per tab: the spiders list imports the project's code, the others only read files
  const [seen, setSeen] = useState<Set<ScrapySection>>(() => new Set(['spiders']));
  const sections: Array<{ key: ScrapySection; node: ReactNode }> = [
    { key: 'spiders', node: <SpidersSection spider={spider} /> },
    { key: 'settings', node: <SettingsSection spider={spider} /> },
    { key: 'items', node: <ItemsSection spider={spider} /> },
    { key: 'pipelines', node: <PipelinesSection spider={spider} /> },
  ];
  return (
    <Card
      size="small"
      className="scrapy-panel tool-panel"
      data-testid="scrapy-panel"
      title={
        <Space>
          <BugOutlined className="tool-panel-logo" />
          <span>{t('title')}</span>
        </Space>
      }
    >
      <Tabs
        size="small"
        activeKey={tab}
        onChange={(k) => {
          setTab(k as ScrapySection);
          setSeen((s) => new Set([...s, k as ScrapySection]));
        }}
        items={sections.map((s) => ({
          key: s.key,
          label: <span data-testid={`scrapy-tab-${s.key}`}>{t(`tabs.${s.key}`)}</span>,
          children: seen.has(s.key) ? s.node : null,
        }))}
      />
    </Card>
  );
}
