/** Settings → API tokens: create (raw token shown once), list own tokens, revoke. */
import { useState } from 'react';
import { Alert, Button, Form, Input, Modal, Popconfirm, Select, Space, Table, Typography } from 'antd';
import { KeyOutlined, PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { ApiToken, CreatedToken } from '@crawldeck/shared';
import { useCreateToken, useRevokeToken, useTokens } from '../api.ts';
import { dialogAction } from '../../../app/dialogAction.ts';
import { validFields } from '../../../app/submitBlocked.ts';
import { toasts } from '../../../api/toasts.ts';

const EXPIRY_OPTIONS = [0, 7, 30, 90, 365];
const fmt = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : null);

export function TokensTab() {
  const { t } = useTranslation('setting');
  const tokens = useTokens();
  const create = useCreateToken();
  const revoke = useRevokeToken();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [form] = Form.useForm<{ name: string; expire_days: number }>();

  return (
    <div data-panel="tokens">
      <Space style={{ marginBottom: 12 }} wrap>
        <Button
          type="primary"
          icon={<PlusOutlined />}
          data-testid="add-token"
          onClick={() => {
            form.resetFields();
            setCreating(true);
          }}
        >
          {t('tokens.add')}
        </Button>
        <Typography.Text type="secondary">{t('tokens.hint')}</Typography.Text>
      </Space>
      <Table<ApiToken>
        rowKey="_id"
        size="middle"
        loading={tokens.isLoading}
        dataSource={tokens.data ?? []}
        pagination={false}
        locale={{ emptyText: t('tokens.empty') }}
        columns={[
          {
            title: t('tokens.name'),
            dataIndex: 'name',
            render: (v: string) => (
              <Space>
                <KeyOutlined />
                {v}
              </Space>
            ),
          },
          {
            title: t('tokens.created'),
            dataIndex: 'create_ts',
            width: 170,
            render: (v: string | null) => fmt(v) ?? '—',
          },
          {
            title: t('tokens.lastUsed'),
            dataIndex: 'last_used_ts',
            width: 170,
            render: (v: string | null) => fmt(v) ?? t('tokens.notUsed'),
          },
          {
            title: t('tokens.expiry'),
            dataIndex: 'expire_ts',
            width: 170,
            render: (v: string | null) => fmt(v) ?? t('tokens.never'),
          },
          {
            title: t('tokens.actions'),
            key: 'actions',
            width: 120,
            render: (_, tok) => (
              <Popconfirm
                title={t('tokens.revokeConfirm', { name: tok.name })}
                okButtonProps={{ danger: true }}
                onConfirm={async () => {
                  await revoke.mutateAsync(tok._id);
                  void toasts().success(t('tokens.revoked'));
                }}
              >
                <Button size="small" danger data-testid={`revoke-${tok.name}`}>
                  {t('tokens.revoke')}
                </Button>
              </Popconfirm>
            ),
          },
        ]}
      />
      <Modal
        open={creating}
        title={t('tokens.add')}
        onCancel={() => setCreating(false)}
        confirmLoading={create.isPending}
        destroyOnHidden
        onOk={dialogAction(async () => {
          const v = await validFields(form);
          const tok = await create.mutateAsync({ name: v.name.trim(), expire_days: v.expire_days || undefined });
          setCreating(false);
          setCreated(tok);
        })}
      >
        <Form form={form} layout="vertical" initialValues={{ expire_days: 0 }}>
          <Form.Item
            name="name"
            label={t('tokens.name')}
            rules={[{ required: true, whitespace: true, message: t('tokens.nameRequired') }]}
          >
            <Input maxLength={100} autoComplete="off" data-testid="token-name" />
          </Form.Item>
          <Form.Item name="expire_days" label={t('tokens.expireDays')}>
            <Select
              options={EXPIRY_OPTIONS.map((d) => ({
                value: d,
                label: d ? t('tokens.days', { count: d }) : t('tokens.noExpiry'),
              }))}
            />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        open={!!created}
        title={t('tokens.createdTitle')}
        onCancel={() => setCreated(null)}
        footer={
          <Button type="primary" onClick={() => setCreated(null)}>
            OK
          </Button>
        }
      >
        <Alert type="warning" showIcon message={t('tokens.createdText')} style={{ marginBottom: 12 }} />
        <Typography.Paragraph
          copyable={{ text: created?.token ?? '', tooltips: [t('tokens.copy'), t('tokens.copied')] }}
          code
          data-testid="new-token"
          style={{ wordBreak: 'break-all' }}
        >
          {created?.token}
        </Typography.Paragraph>
      </Modal>
    </div>
  );
}
