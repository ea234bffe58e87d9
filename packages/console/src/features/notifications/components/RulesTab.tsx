/** The rules: what fires, what it covers and where it goes. */
import { useState } from 'react';
import { Button, Popconfirm, Space, Switch, Table, Tag, Tooltip, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { NODE_EVENTS, isNodeResourceEvent, type RuleInfo } from '@crawldeck/shared';
import { useChannels, useDeleteRule, useRules, useSaveRule } from '../api.ts';
import RuleFormModal from './RuleFormModal.tsx';
import { toasts } from '../../../api/toasts.ts';

export default function RulesTab() {
  const { t } = useTranslation('notifications');
  const rules = useRules();
  const channels = useChannels();
  const save = useSaveRule();
  const del = useDeleteRule();
  const [editing, setEditing] = useState<RuleInfo | null | undefined>(undefined);
  const channelName = (id: string) => channels.data?.find((c) => c._id === id)?.name ?? id;

  const scope = (r: RuleInfo) => {
    if (NODE_EVENTS.includes(r.event)) return t('rules.everyNode');
    if (!r.project_ids.length && !r.spider_ids.length && !r.tags.length) return t('rules.scopeAll');
    return t('rules.scopeSome', { projects: r.project_ids.length, spiders: r.spider_ids.length, tags: r.tags.length });
  };

  return (
    <div data-panel="rules">
      <Space style={{ marginBottom: 12, width: '100%', justifyContent: 'space-between' }} wrap>
        <Typography.Text type="secondary">{t('rules.intro')}</Typography.Text>
        <Button type="primary" icon={<PlusOutlined />} className="rule-add" onClick={() => setEditing(null)}>
          {t('rules.add')}
        </Button>
      </Space>
      <Table<RuleInfo>
        rowKey="_id"
        size="middle"
        loading={rules.isLoading}
        dataSource={rules.data ?? []}
        pagination={false}
        locale={{ emptyText: t('rules.empty') }}
        scroll={{ x: 900 }}
        columns={[
          { title: t('columns.name'), dataIndex: 'name' },
          {
            title: t('columns.event'),
            dataIndex: 'event',
            render: (e: string, r) => {
              const usage = isNodeResourceEvent(r.event) ? `%, ${r.for_seconds} s` : '';
              return `${t(`events.${e}`)}${r.threshold != null ? ` (${r.threshold}${usage})` : ''}`;
            },
          },
          { title: t('columns.scope'), key: 'scope', render: (_, r) => scope(r) },
          {
            title: t('columns.channels'),
            dataIndex: 'channel_ids',
            render: (ids: string[]) => ids.map((id) => <Tag key={id}>{channelName(id)}</Tag>),
          },
          {
            title: t('columns.enabled'),
            dataIndex: 'enabled',
            render: (on: boolean, r) => (
              <Switch
                size="small"
                checked={on}
                onChange={(v) => void save.mutateAsync({ id: r._id, form: { enabled: v } }).catch(() => undefined)}
              />
            ),
          },
          {
            title: t('columns.action'),
            key: 'action',
            fixed: 'right',
            width: 100,
            render: (_, r) => (
              <Space size={2}>
                <Tooltip title={t('actions.edit')}>
                  <Button
                    type="text"
                    size="small"
                    icon={<EditOutlined />}
                    aria-label={t('actions.edit')}
                    onClick={() => setEditing(r)}
                  />
                </Tooltip>
                <Popconfirm
                  title={t('actions.confirmDelete', { name: r.name })}
                  onConfirm={() => del.mutateAsync(r._id).then(() => void toasts().success(t('messages.deleted')))}
                >
                  <Button type="text" size="small" danger icon={<DeleteOutlined />} aria-label={t('actions.delete')} />
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <RuleFormModal open={editing !== undefined} rule={editing} onClose={() => setEditing(undefined)} />
    </div>
  );
}
