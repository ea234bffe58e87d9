/** /feedback: e-mail, chat-app account and content are all required; admins see what was sent. */
import { useState } from 'react';
import { Button, Card, Form, Input, Space, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { isValidEmail, type Feedback } from '@crawldeck/shared';
import { useUserStore } from '../../app/stores/user.ts';
import { useFeedbackList, useSendFeedback } from './api.ts';
import { toasts } from '../../api/toasts.ts';

interface Values {
  email: string;
  chat_account: string;
  content: string;
}

export default function FeedbackPage() {
  const { t } = useTranslation(['feedback', 'route']);
  const isAdmin = useUserStore((s) => s.role) === 'admin';
  const userEmail = useUserStore((s) => s.user_info?.email);
  const [form] = Form.useForm<Values>();
  const send = useSendFeedback();
  const [page, setPage] = useState(1);
  const list = useFeedbackList(isAdmin, page, 10);

  return (
    <div className="app-page" data-page="feedback">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:feedback')}
        </Typography.Title>
      </div>
      <Space direction="vertical" size="large" style={{ width: '100%' }}>
        <Card>
          <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
          <Form<Values>
            form={form}
            layout="vertical"
            style={{ maxWidth: 640 }}
            initialValues={{ email: userEmail ?? '' }}
            onFinishFailed={() => void toasts().error(t('blocked'))}
            onFinish={async (v) => {
              await send.mutateAsync({
                email: v.email.trim(),
                chat_account: v.chat_account.trim(),
                content: v.content.trim(),
              });
              form.resetFields(['chat_account', 'content']);
              void toasts().success(t('submitted'));
            }}
          >
            <Form.Item
              name="email"
              label={t('email')}
              rules={[
                { required: true, whitespace: true, message: t('required') },
                {
                  validator: (_, v: string | undefined) =>
                    !v?.trim() || isValidEmail(v.trim())
                      ? Promise.resolve()
                      : Promise.reject(new Error(t('invalidEmail'))),
                },
              ]}
            >
              <Input autoComplete="email" inputMode="email" data-testid="feedback-email" />
            </Form.Item>
            <Form.Item
              name="chat_account"
              label={t('chatAccount')}
              rules={[{ required: true, whitespace: true, message: t('required') }]}
            >
              <Input placeholder={t('chatAccountPlaceholder')} maxLength={200} data-testid="feedback-chat" />
            </Form.Item>
            <Form.Item
              name="content"
              label={t('content')}
              rules={[{ required: true, whitespace: true, message: t('required') }]}
            >
              <Input.TextArea
                placeholder={t('contentPlaceholder')}
                autoSize={{ minRows: 5, maxRows: 12 }}
                maxLength={10000}
                showCount
                data-testid="feedback-content"
              />
            </Form.Item>
            <Button type="primary" htmlType="submit" loading={send.isPending} data-testid="feedback-submit">
              {t('submit')}
            </Button>
          </Form>
        </Card>
        {isAdmin ? (
          <Card title={t('list')} data-testid="feedback-list">
            <Table<Feedback>
              rowKey="_id"
              size="small"
              loading={list.isLoading}
              dataSource={list.data?.data ?? []}
              locale={{ emptyText: t('empty') }}
              pagination={{
                current: page,
                pageSize: 10,
                total: list.data?.total ?? 0,
                onChange: setPage,
                showSizeChanger: false,
              }}
              columns={[
                {
                  title: t('time'),
                  dataIndex: 'create_ts',
                  width: 170,
                  render: (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—'),
                },
                { title: t('user'), dataIndex: 'username', width: 140, render: (v: string | null) => v ?? '—' },
                { title: t('email'), dataIndex: 'email', width: 220 },
                { title: t('chatAccount'), dataIndex: 'chat_account', width: 160 },
                {
                  title: t('content'),
                  dataIndex: 'content',
                  render: (v: string) => (
                    <Typography.Paragraph
                      style={{ whiteSpace: 'pre-wrap', margin: 0 }}
                      ellipsis={{ rows: 3, expandable: true }}
                    >
                      {v}
                    </Typography.Paragraph>
                  ),
                },
              ]}
            />
          </Card>
        ) : null}
      </Space>
    </div>
  );
}
