/** The channels: add, edit, delete, and "send test", which shows what the endpoint answered. */
import { useState } from 'react';
import { Button, Modal, Popconfirm, Space, Switch, Table, Tag, Tooltip, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, PlusOutlined, SendOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ChannelAttemptResult, ChannelInfo } from '@crawldeck/shared';
import { useChannels, useDeleteChannel, useSaveChannel, useTestChannel } from '../api.ts';
import ChannelFormModal from './ChannelFormModal.tsx';
import { toasts } from '../../../api/toasts.ts';

function TestAnswer({ r }: { r: ChannelAttemptResult }) {
  const { t } = useTranslation('notifications');
  return (
    <div className="channel-test-answer">
      <p>
        {t('messages.status')}: {r.status ?? '—'} · {r.duration_ms} ms
      </p>
      {r.error && (
        <p>
          {t('messages.error')}: {r.error}
        </p>
      )}
      <Typography.Paragraph code style={{ whiteSpace: 'pre-wrap', maxHeight: 240, overflow: 'auto' }}>
        {r.answer || t('messages.none')}
      </Typography.Paragraph>
    </div>
  );
}

export default function ChannelsTab() {
  const { t } = useTranslation('notifications');
  const channels = useChannels();
  const save = useSaveChannel();
  const del = useDeleteChannel();
  const test = useTestChannel();
  const [editing, setEditing] = useState<ChannelInfo | null | undefined>(undefined);

  async function sendTest(c: ChannelInfo) {
    const r = await test.mutateAsync(c._id);
    const show = r.ok ? Modal.success : Modal.error;
    show({ title: r.ok ? t('messages.testOk') : t('messages.testFailed'), content: <TestAnswer r={r} /> });
  }

  return (
    <div data-panel="channels">
      <Space style={{ marginBottom: 12, width: '100%', justifyContent: 'space-between' }} wrap>
        <Typography.Text type="secondary">{t('channels.intro')}</Typography.Text>
        <Button type="primary" icon={<PlusOutlined />} className="channel-add" onClick={() => setEditing(null)}>
          {t('channels.add')}
        </Button>
      </Space>
      <Table<ChannelInfo>
        rowKey="_id"
        size="middle"
        loading={channels.isLoading}
        dataSource={channels.data ?? []}
        pagination={false}
        locale={{ emptyText: t('channels.empty') }}
        scroll={{ x: 800 }}
        columns={[
          { title: t('columns.name'), dataIndex: 'name' },
          { title: t('columns.kind'), dataIndex: 'kind', render: (k: string) => t(`kinds.${k}`) },
          { title: t('columns.lang'), dataIndex: 'lang', render: (l: string) => t(`langs.${l}`) },
          {
            title: t('columns.secrets'),
            dataIndex: 'secrets_set',
            render: (s: string[]) => s.map((f) => <Tag key={f}>{t(`fields.${f}`)}</Tag>),
          },
          {
            title: t('columns.enabled'),
            dataIndex: 'enabled',
            render: (on: boolean, c) => (
              <Switch
                size="small"
                checked={on}
                onChange={(v) => void save.mutateAsync({ id: c._id, form: { enabled: v } }).catch(() => undefined)}
              />
            ),
          },
          {
            title: t('columns.action'),
            key: 'action',
            fixed: 'right',
            width: 130,
            render: (_, c) => (
              <Space size={2}>
                <Tooltip title={t('actions.test')}>
                  <Button
                    type="text"
                    size="small"
                    icon={<SendOutlined />}
                    aria-label={t('actions.test')}
                    className="channel-test"
                    loading={test.isPending && test.variables === c._id}
                    onClick={() => void sendTest(c).catch(() => undefined)}
                  />
                </Tooltip>
                <Tooltip title={t('actions.edit')}>
                  <Button
                    type="text"
                    size="small"
                    icon={<EditOutlined />}
                    aria-label={t('actions.edit')}
                    onClick={() => setEditing(c)}
                  />
                </Tooltip>
                <Popconfirm
                  title={t('actions.confirmDelete', { name: c.name })}
                  onConfirm={() => del.mutateAsync(c._id).then(() => void toasts().success(t('messages.deleted')))}
                >
                  <Button type="text" size="small" danger icon={<DeleteOutlined />} aria-label={t('actions.delete')} />
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <ChannelFormModal open={editing !== undefined} channel={editing} onClose={() => setEditing(undefined)} />
    </div>
  );
}
