/**
 * Spider list (/spiders): paginated table with keyword search, project and type filters, add dialog
 * with zip upload, import from URL, row selection for batch actions, delete with confirmation.
 */
import { useEffect, useMemo, useState } from 'react';
import { App, Button, Card, Space, Table, Typography } from 'antd';
import { CloudDownloadOutlined, DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useProjects } from '../projects/api.ts';
import { useDeleteSpiders, useSpiders } from './api.ts';
import SpiderAddModal from './components/SpiderAddModal.tsx';
import ImportModal from './components/ImportModal.tsx';
import SpiderListFilters from './components/SpiderListFilters.tsx';
import { useSpiderColumns } from './components/useSpiderColumns.tsx';
import type { Spider, SpiderListQuery } from './types.ts';
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

  const columns = useSpiderColumns({ projectNames, onDelete: confirmDelete });

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
          <SpiderListFilters
            query={query}
            projects={projects.data ?? []}
            onChange={update}
            onProjectChange={setProjectFilter}
            refreshing={spiders.isFetching}
            onRefresh={() => void spiders.refetch()}
          />
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
