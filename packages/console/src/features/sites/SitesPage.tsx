/** /sites (hidden): sites by main category/category with keyword search, category edit, CSV import, collected URLs. */
import { useState } from 'react';
import { Button, Card, Input, Select, Space, Table, Tabs, Tag, Typography, Upload } from 'antd';
import { EditOutlined, UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { SITE_PAGE_SIZE, type Site } from '@crawldeck/shared';
import { useUserStore } from '../../app/stores/user.ts';
import { useCategories, useImportSites, useMainCategories, useSites } from './api.ts';
import { CollectedUrls } from './components/CollectedUrls.tsx';
import { SiteCategoryModal } from './components/SiteCategoryModal.tsx';
import { toasts } from '../../api/toasts.ts';

function SitesTab() {
  const { t } = useTranslation('sites');
  const isAdmin = useUserStore((s) => s.role) === 'admin';
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(SITE_PAGE_SIZE);
  const [keyword, setKeyword] = useState('');
  const [mainCategory, setMainCategory] = useState<string | undefined>();
  const [category, setCategory] = useState<string | undefined>();
  const sites = useSites({
    page_num: page,
    page_size: pageSize,
    keyword,
    filter: { main_category: mainCategory, category },
  });
  const mains = useMainCategories();
  const cats = useCategories(mainCategory);
  const importer = useImportSites();
  const [editing, setEditing] = useState<Site | null>(null);
  const [newCategory, setNewCategory] = useState('');

  return (
    <div data-panel="sites">
      <Space style={{ marginBottom: 12 }} wrap>
        <Input.Search
          allowClear
          placeholder={t('keyword')}
          style={{ width: 280 }}
          onSearch={(v) => {
            setKeyword(v.trim());
            setPage(1);
          }}
          data-testid="sites-search"
        />
        <Select
          allowClear
          placeholder={t('allMainCategories')}
          style={{ width: 200 }}
          value={mainCategory}
          options={(mains.data ?? []).map((c) => ({ value: c, label: c }))}
          onChange={(v: string | undefined) => {
            setMainCategory(v);
            setCategory(undefined);
            setPage(1);
          }}
        />
        <Select
          allowClear
          placeholder={t('allCategories')}
          style={{ width: 200 }}
          value={category}
          options={(cats.data ?? []).map((c) => ({ value: c, label: c }))}
          onChange={(v: string | undefined) => {
            setCategory(v);
            setPage(1);
          }}
        />
        {isAdmin ? (
          <Upload
            accept=".csv,text/csv"
            showUploadList={false}
            beforeUpload={(file) => {
              importer.mutate(file, { onSuccess: (r) => void toasts().success(t('imported', { ...r })) });
              return false;
            }}
          >
            <Button icon={<UploadOutlined />} loading={importer.isPending} title={t('importHint')}>
              {t('import')}
            </Button>
          </Upload>
        ) : null}
      </Space>
      {isAdmin ? (
        <Typography.Paragraph type="secondary" style={{ marginTop: -4 }}>
          {t('importHint')}
        </Typography.Paragraph>
      ) : null}
      <Table<Site>
        rowKey="_id"
        size="middle"
        loading={sites.isLoading}
        dataSource={sites.data?.items ?? []}
        locale={{ emptyText: t('empty') }}
        pagination={{
          current: page,
          pageSize,
          total: sites.data?.total_count ?? 0,
          showSizeChanger: true,
          onChange: (p, s) => {
            setPage(s !== pageSize ? 1 : p);
            setPageSize(s);
          },
        }}
        columns={[
          { title: t('rank'), dataIndex: 'rank', width: 80, render: (v: number | null) => v ?? '—' },
          {
            title: t('domain'),
            dataIndex: 'domain',
            render: (v: string) => (
              <a href={`https://${v}`} target="_blank" rel="noreferrer noopener">
                {v}
              </a>
            ),
          },
          { title: t('name'), dataIndex: 'name' },
          {
            title: t('mainCategory'),
            dataIndex: 'main_category',
            width: 150,
            render: (v: string) => <Tag color="blue">{v}</Tag>,
          },
          {
            title: t('category'),
            dataIndex: 'category',
            width: 150,
            render: (v: string) => (v ? <Tag>{v}</Tag> : '—'),
          },
          { title: t('description'), dataIndex: 'description', ellipsis: true },
          {
            title: t('actions'),
            key: 'actions',
            width: 140,
            render: (_, s) => (
              <Button
                size="small"
                icon={<EditOutlined />}
                onClick={() => {
                  setEditing(s);
                  setNewCategory(s.category);
                }}
              >
                {t('editCategory')}
              </Button>
            ),
          },
        ]}
      />
      <SiteCategoryModal
        site={editing}
        category={newCategory}
        onCategoryChange={setNewCategory}
        onClose={() => setEditing(null)}
      />
    </div>
  );
}

export default function SitesPage() {
  const { t } = useTranslation('sites');
  return (
    <div className="app-page" data-page="sites">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('title')}
        </Typography.Title>
      </div>
      <Card>
        <Tabs
          items={[
            { key: 'sites', label: t('tabs.sites'), children: <SitesTab /> },
            { key: 'urls', label: t('tabs.urls'), children: <CollectedUrls /> },
          ]}
        />
      </Card>
    </div>
  );
}
