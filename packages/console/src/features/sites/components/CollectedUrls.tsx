/** Collected URLs tab: region filter, paged list, add/edit/delete (GET /queryUrl, POST /insertUrl, /updateUrl, GET /deleteUrl). */
import { useState } from 'react';
import { Button, Form, Input, Modal, Popconfirm, Space, Table, Tag } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { isValidHttpUrl, isValidRegionCode, type CollectedUrl } from '@crawldeck/shared';
import { useCollectedUrls, useDeleteUrl, useSaveUrl } from '../api.ts';
import { dialogAction } from '../../../app/dialogAction.ts';
import { toasts } from '../../../api/toasts.ts';

const PAGE_SIZE = 10;

export function CollectedUrls() {
  const { t } = useTranslation('sites');
  const [page, setPage] = useState(1);
  const [region, setRegion] = useState('');
  const urls = useCollectedUrls(page, PAGE_SIZE, region);
  const save = useSaveUrl();
  const del = useDeleteUrl();
  const [editing, setEditing] = useState<CollectedUrl | null | undefined>(undefined);
  const [form] = Form.useForm<{ url: string; regionCode: string; title?: string }>();

  const open = (u: CollectedUrl | null) => {
    form.resetFields();
    if (u) form.setFieldsValue({ url: u.url, regionCode: u.regionCode, title: u.title });
    setEditing(u);
  };

  return (
    <div data-panel="collected-urls">
      <Space style={{ marginBottom: 12 }} wrap>
        <Input.Search
          allowClear
          placeholder={t('urls.regionPlaceholder')}
          style={{ width: 220 }}
          onSearch={(v) => {
            setRegion(v.trim().toUpperCase());
            setPage(1);
          }}
        />
        <Button type="primary" icon={<PlusOutlined />} onClick={() => open(null)}>
          {t('urls.add')}
        </Button>
      </Space>
      <Table<CollectedUrl>
        rowKey="_id"
        size="middle"
        loading={urls.isLoading}
        dataSource={urls.data?.data ?? []}
        locale={{ emptyText: t('urls.empty') }}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total: urls.data?.totalCount ?? 0,
          onChange: setPage,
          showSizeChanger: false,
        }}
        columns={[
          {
            title: t('urls.url'),
            dataIndex: 'url',
            ellipsis: true,
            render: (v: string) =>
              isValidHttpUrl(v) ? (
                <a href={v} target="_blank" rel="noreferrer noopener">
                  {v}
                </a>
              ) : (
                v
              ),
          },
          { title: t('urls.title'), dataIndex: 'title', ellipsis: true },
          { title: t('urls.regionCode'), dataIndex: 'regionCode', width: 100, render: (v: string) => <Tag>{v}</Tag> },
          {
            title: t('urls.created'),
            dataIndex: 'create_ts',
            width: 170,
            render: (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—'),
          },
          {
            title: t('actions'),
            key: 'actions',
            width: 170,
            render: (_, u) => (
              <Space>
                <Button size="small" onClick={() => open(u)}>
                  {t('urls.edit')}
                </Button>
                <Popconfirm
                  title={t('urls.deleteConfirm')}
                  okButtonProps={{ danger: true }}
                  onConfirm={async () => {
                    await del.mutateAsync(u._id);
                    void toasts().success(t('urls.deleted'));
                  }}
                >
                  <Button size="small" danger>
                    {t('urls.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <Modal
        open={editing !== undefined}
        title={editing ? t('urls.edit') : t('urls.add')}
        onCancel={() => setEditing(undefined)}
        confirmLoading={save.isPending}
        destroyOnHidden
        onOk={dialogAction(async () => {
          const v = await form.validateFields();
          const body = {
            url: v.url.trim(),
            regionCode: v.regionCode.trim().toUpperCase(),
            title: v.title?.trim() ?? '',
          };
          await save.mutateAsync(editing ? { id: editing._id, ...body } : body);
          void toasts().success(t('urls.saved'));
          setEditing(undefined);
        })}
      >
        <Form form={form} layout="vertical">
          <Form.Item
            name="url"
            label={t('urls.url')}
            rules={[
              {
                validator: (_, v: string | undefined) =>
                  isValidHttpUrl(v?.trim() ?? '') ? Promise.resolve() : Promise.reject(new Error(t('urls.invalidUrl'))),
              },
            ]}
          >
            <Input placeholder="https://" />
          </Form.Item>
          <Form.Item
            name="regionCode"
            label={t('urls.regionCode')}
            rules={[
              {
                validator: (_, v: string | undefined) =>
                  isValidRegionCode((v ?? '').trim().toUpperCase())
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('urls.invalidRegion'))),
              },
            ]}
          >
            <Input placeholder={t('urls.regionPlaceholder')} maxLength={6} />
          </Form.Item>
          <Form.Item name="title" label={t('urls.title')}>
            <Input maxLength={500} />
          </Form.Item>
        </Form>
      </Modal>
    </div>
  );
}
