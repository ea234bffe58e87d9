/** The spider list's filters: keyword, project and type, and a refresh button. */
import { useState } from 'react';
import { Button, Input, Select, Space, Tooltip } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Project } from '../../projects/types.ts';
import type { SpiderListQuery } from '../types.ts';

interface Props {
  query: SpiderListQuery;
  projects: Project[];
  onChange(patch: Partial<SpiderListQuery>): void;
  onProjectChange(projectId: string | undefined): void;
  refreshing: boolean;
  onRefresh(): void;
}

export default function SpiderListFilters({
  query,
  projects,
  onChange,
  onProjectChange,
  refreshing,
  onRefresh,
}: Props) {
  const { t } = useTranslation(['spiders', 'common']);
  const [keywordInput, setKeywordInput] = useState('');
  return (
    <Space wrap size={8}>
      <Input.Search
        allowClear
        value={keywordInput}
        onChange={(e) => setKeywordInput(e.target.value)}
        onSearch={(v) => onChange({ keyword: v.trim() || undefined })}
        placeholder={t('spiders:searchPlaceholder')}
        style={{ width: 240 }}
        data-testid="spider-search"
        data-tour="spider-list-search"
      />
      <Select
        allowClear
        showSearch
        optionFilterProp="label"
        value={query.project_id}
        onChange={(v) => onProjectChange(v)}
        placeholder={t('spiders:filterProject')}
        style={{ width: 200 }}
        options={projects.map((p) => ({ value: p._id, label: p.name }))}
        data-testid="spider-project-filter"
      />
      <Select
        allowClear
        value={query.type}
        onChange={(v) => onChange({ type: v })}
        placeholder={t('spiders:filterType')}
        style={{ width: 160 }}
        options={[
          { value: 'customized', label: t('spiders:types.customized') },
          { value: 'configurable', label: t('spiders:types.configurable') },
        ]}
        data-testid="spider-type-filter"
      />
      <Tooltip title={t('spiders:refresh')}>
        <Button icon={<ReloadOutlined />} onClick={onRefresh} loading={refreshing} />
      </Tooltip>
    </Space>
  );
}
