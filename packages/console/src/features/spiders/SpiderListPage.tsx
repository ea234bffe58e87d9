/**
 * Spider list (/spiders): paginated table with keyword search, project and type filters, add dialog
 * with zip upload, import from URL, row selection for batch actions, delete with confirmation.
 */
import { useEffect, useMemo, useState } from 'react';
import { App, Button, Card, Input, Select, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import {
  CloudDownloadOutlined,
  DeleteOutlined,
  GlobalOutlined,
  LockOutlined,
  PlusOutlined,
  ReloadOutlined,
} from '@ant-design/icons';
import { Link, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { useProjects } from '../projects/api.ts';
import { useDeleteSpiders, useSpiders } from './api.ts';
import SpiderAddModal from './components/SpiderAddModal.tsx';
import ImportModal from './components/ImportModal.tsx';
import type { Spider, SpiderListQuery, SpiderType } from './types.ts';
import './spiders.css';
import TourFor from '../tours/TourFor.tsx';
import { RunSpiderButton } from '../tasks/components/RunDialog.tsx';
import { getDefaultPageSize } from '../setting/preferences.ts';
import { dialogAction } from '../../app/dialogAction.ts';

const PAGE_SIZES = [10, 20, 50, 100];

export default function SpiderListPage() {
  const { t } = useTranslation(['spiders', 'route', 'common']);
  const { modal, message } = App.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const [query, setQuery] = useState<SpiderListQuery>(() => ({ page_num: 1, page_size: getDefaultPageSize(10) }));
  const [keywordInput, setKeywordInput] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [addOpen, setAddOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const spiders = useSpiders(query);
  const projects = useProjects();
  const del = useDeleteSpiders();

  // /spiders?project_id=… (from the project cards) presets the project filter. The view is kept alive while
  // hidden, so only react to the URL while this page is the current one.
  const active = location.pathname === '/spiders';
  const urlProject = active ? (new URLSearchParams(location.search).get('project_id') ?? undefined) : undefined;
  useEffect(() => {
    if (active && urlProject !== undefined)
      setQuery((q) => ({ ...q, project_id: urlProject || undefined, page_num: 1 }));
  }, [active, urlProject]);

  const projectNames = useMemo(() => new Map((projects.data ?? []).map((p) => [p._id, p.name])), [projects.data]);

  const update = (patch: Partial<SpiderListQuery>) => {
    setQuery((q) => ({ ...q, ...patch, page_num: patch.page_num ?? 1 }));
    setSelected([]);
  };

  const setProjectFilter = (project_id: string | undefined) => {
    update({ project_id });
    if (new URLSearchParams(location.search).has('project_id')) navigate('/spiders', { replace: true });
  };

  const confirmDelete = (ids: string[], label: string) => {
    modal.confirm({
      title: t('spiders:delete.title'),
      content:
        ids.length === 1 ? t('spiders:delete.one', { name: label }) : t('spiders:delete.many', { count: ids.length }),
      okText: t('common:confirm'),
      okButtonProps: { danger: true, 'data-testid': 'confirm-delete' },
      cancelText: t('common:cancel'),
      onOk: dialogAction(async () => {
        await del.mutateAsync(ids);
        setSelected((s) => s.filter((x) => !ids.includes(x)));
        void message.success(t('spiders:delete.done', { count: ids.length }));
      }),
    });
  };

  const columns: TableProps<Spider>['columns'] = [
    {
      title: t('spiders:fields.name'),
      dataIndex: 'name',
      key: 'name',
      sorter: true,
      render: (_, s) => (
        <div className="spider-name-cell">
          <Link to={`/spiders/${s._id}`} className="spider-name-link" data-testid="spider-link">
            {s.display_name || s.name}
          </Link>
          {s.display_name && s.display_name !== s.name && <span className="spider-name-sub">{s.name}</span>}
        </div>
      ),
    },
    {
      title: t('spiders:fields.type'),
      dataIndex: 'type',
      key: 'type',
      width: 120,
      render: (v: SpiderType) => (
        <Tag color={v === 'configurable' ? 'purple' : 'geekblue'}>{t(`spiders:types.${v}`)}</Tag>
      ),
    },
    {
      title: t('spiders:fields.project'),
      dataIndex: 'project_id',
      key: 'project',
      width: 160,
      render: (v: string | null) =>
        v && projectNames.get(v) ? (
          <Tag bordered={false}>{projectNames.get(v)}</Tag>
        ) : (
          <Typography.Text type="secondary">{t('spiders:noProject')}</Typography.Text>
        ),
    },
    {
      title: t('spiders:fields.cmd'),
      dataIndex: 'cmd',
      key: 'cmd',
      ellipsis: true,
      render: (v: string) =>
        v ? <code className="spider-cmd">{v}</code> : <Typography.Text type="secondary">-</Typography.Text>,
    },
    {
      title: t('spiders:fields.isPublic'),
      dataIndex: 'is_public',
      key: 'is_public',
      width: 100,
      align: 'center',
      render: (v: boolean) =>
        v ? (
          <Tooltip title={t('spiders:public')}>
            <GlobalOutlined className="spider-public" />
          </Tooltip>
        ) : (
          <Tooltip title={t('spiders:private')}>
            <LockOutlined className="spider-private" />
          </Tooltip>
        ),
    },
    {
      title: t('spiders:fields.updateTs'),
      dataIndex: 'update_ts',
      key: 'update_ts',
      width: 170,
      sorter: true,
      render: (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '-'),
    },
    {
      title: t('spiders:actions'),
      key: 'actions',
      width: 210,
      fixed: 'right',
      render: (_, s) => (
        <Space size={4}>
          <RunSpiderButton spiders={[s]} type="link" size="small" />
          <Button type="link" size="small" onClick={() => navigate(`/spiders/${s._id}`)}>
            {t('spiders:view')}
          </Button>
          <Button
            type="link"
            size="small"
            danger
            onClick={() => confirmDelete([s._id], s.display_name || s.name)}
            data-testid="spider-delete"
          >
            {t('spiders:delete.action')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <div className="app-page spiders-page" data-page="spiders">
      <TourFor name="spider-list" />
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:spiders')}
        </Typography.Title>
        <Typography.Text type="secondary" className="app-page-subtitle">
          {t('spiders:subtitle')}
        </Typography.Text>
      </div>
      <Card>
        <div className="spiders-toolbar">
          <Space wrap size={8}>
            <Input.Search
              allowClear
              value={keywordInput}
              onChange={(e) => setKeywordInput(e.target.value)}
              onSearch={(v) => update({ keyword: v.trim() || undefined })}
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
              onChange={(v) => setProjectFilter(v)}
              placeholder={t('spiders:filterProject')}
              style={{ width: 200 }}
              options={(projects.data ?? []).map((p) => ({ value: p._id, label: p.name }))}
              data-testid="spider-project-filter"
            />
            <Select
              allowClear
              value={query.type}
              onChange={(v) => update({ type: v })}
              placeholder={t('spiders:filterType')}
              style={{ width: 160 }}
              options={[
                { value: 'customized', label: t('spiders:types.customized') },
                { value: 'configurable', label: t('spiders:types.configurable') },
              ]}
              data-testid="spider-type-filter"
            />
            <Tooltip title={t('spiders:refresh')}>
              <Button icon={<ReloadOutlined />} onClick={() => void spiders.refetch()} loading={spiders.isFetching} />
            </Tooltip>
          </Space>
          <Space wrap size={8}>
            {selected.length > 0 && (
              <RunSpiderButton batch spiders={(spiders.data?.list ?? []).filter((x) => selected.includes(x._id))} />
            )}
            {selected.length > 0 && (
              <Button
                danger
                icon={<DeleteOutlined />}
                onClick={() => confirmDelete(selected, '')}
                data-testid="spider-batch-delete"
              >
                {t('spiders:delete.batch', { count: selected.length })}
              </Button>
            )}
            <Button
              icon={<CloudDownloadOutlined />}
              onClick={() => setImportOpen(true)}
              data-testid="spider-import"
              data-tour="spider-list-import"
            >
              {t('spiders:import.button')}
            </Button>
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setAddOpen(true)}
              data-testid="spider-add"
              data-tour="spider-list-add"
            >
              {t('spiders:add.button')}
            </Button>
          </Space>
        </div>
        <Table<Spider>
          rowKey="_id"
          size="middle"
          columns={columns}
          dataSource={spiders.data?.list ?? []}
          loading={spiders.isLoading || del.isPending}
          scroll={{ x: 960 }}
          rowSelection={{
            selectedRowKeys: selected,
            onChange: (keys) => setSelected(keys as string[]),
            preserveSelectedRowKeys: false,
          }}
          onChange={(pagination, _filters, sorter) => {
            const s = Array.isArray(sorter) ? sorter[0] : sorter;
            const sortKey = s?.order ? String(s.columnKey ?? s.field) : undefined;
            setQuery((q) => ({
              ...q,
              page_num: pagination.current ?? 1,
              page_size: pagination.pageSize ?? q.page_size,
              sort_key: sortKey,
              sort_direction: s?.order ? (s.order === 'ascend' ? 'asc' : 'desc') : undefined,
            }));
          }}
          pagination={{
            current: query.page_num,
            pageSize: query.page_size,
            total: spiders.data?.total ?? 0,
            showSizeChanger: true,
            pageSizeOptions: PAGE_SIZES,
            showTotal: (total) => t('spiders:total', { count: total }),
          }}
          data-testid="spider-table"
          data-tour="spider-list-table"
        />
      </Card>
      <SpiderAddModal open={addOpen} defaultProjectId={query.project_id} onClose={() => setAddOpen(false)} />
      <ImportModal open={importOpen} onClose={() => setImportOpen(false)} />
    </div>
  );
}
