/** /users (admin only): paged user table, add/edit dialogs, delete with confirmation. */
import { useState } from 'react';
import { Alert, Button, Card, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { USER_PAGE_SIZE, type UserInfo } from '@crawldeck/shared';
import { useUserStore } from '../../app/stores/user.ts';
import { useDeleteUser, useUsers } from './api.ts';
import { UserFormDialog } from './components/UserFormDialog.tsx';
import { getDefaultPageSize } from '../setting/preferences.ts';
import { toasts } from '../../api/toasts.ts';

/** A normal user who opens /users by its address reads that it is for administrators, with no actions. */
export default function UserListPage() {
  const { t } = useTranslation(['users', 'route']);
  const isAdmin = useUserStore((s) => s.role) === 'admin';
  if (isAdmin) return <UserList />;
  return (
    <div className="app-page" data-page="users">
      <Alert type="info" showIcon message={t('adminOnly')} data-testid="users-admin-only" />
    </div>
  );
}

function UserList() {
  const { t } = useTranslation(['users', 'route']);
  const me = useUserStore((s) => s.user_info);
  const [page, setPage] = useState(1);
  // Settings → General chooses the page size of lists in this browser; 10 otherwise.
  const [pageSize] = useState(() => getDefaultPageSize(USER_PAGE_SIZE));
  const [dialog, setDialog] = useState<{ open: boolean; user: UserInfo | null }>({ open: false, user: null });
  const users = useUsers(page, pageSize);
  const del = useDeleteUser();

  return (
    <div className="app-page" data-page="users">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:users')}
        </Typography.Title>
      </div>
      <Card>
        <Space style={{ marginBottom: 16 }}>
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setDialog({ open: true, user: null })}
            data-testid="add-user"
          >
            {t('add')}
          </Button>
        </Space>
        <Table<UserInfo>
          rowKey="_id"
          loading={users.isLoading}
          dataSource={users.data?.data ?? []}
          pagination={{
            current: page,
            pageSize,
            total: users.data?.total ?? 0,
            showSizeChanger: false,
            showTotal: (total) => t('total', { count: total }),
            onChange: setPage,
          }}
          columns={[
            {
              title: t('username'),
              dataIndex: 'username',
              render: (v: string, u) => (
                <Space>
                  {v}
                  {u._id === me?._id ? <Tag>{t('you')}</Tag> : null}
                </Space>
              ),
            },
            { title: t('email'), dataIndex: 'email', render: (v: string) => v || '—' },
            {
              title: t('role'),
              dataIndex: 'role',
              width: 140,
              render: (r: UserInfo['role']) => <Tag color={r === 'admin' ? 'gold' : 'blue'}>{t(`roles.${r}`)}</Tag>,
            },
            {
              title: t('createTs'),
              dataIndex: 'create_ts',
              width: 180,
              render: (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '—'),
            },
            {
              title: t('actions'),
              key: 'actions',
              width: 200,
              render: (_, u) => (
                <Space>
                  <Button size="small" icon={<EditOutlined />} onClick={() => setDialog({ open: true, user: u })}>
                    {t('edit')}
                  </Button>
                  <Popconfirm
                    title={t('deleteConfirm', { username: u.username })}
                    okButtonProps={{ danger: true }}
                    onConfirm={async () => {
                      await del.mutateAsync(u._id);
                      void toasts().success(t('deleted'));
                    }}
                  >
                    <Button size="small" danger icon={<DeleteOutlined />} disabled={u._id === me?._id}>
                      {t('delete')}
                    </Button>
                  </Popconfirm>
                </Space>
              ),
            },
          ]}
        />
      </Card>
      <UserFormDialog open={dialog.open} user={dialog.user} onClose={() => setDialog({ open: false, user: null })} />
    </div>
  );
}
