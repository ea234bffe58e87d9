/**
 * Task results: columns from the first row's keys, page size 10, Download CSV named after the spider and the task
 * (or, for Excel, with a UTF-8 byte order mark so that Chinese text opens correctly). Cells that would run as
 * spreadsheet formulas are protected by the server; the options menu also offers the text exactly as crawled, JSON,
 * JSON Lines and an Excel workbook.
 */
import { useMemo, useState } from 'react';
import { App, Button, Dropdown, Empty, Space, Table, Tooltip, Typography } from 'antd';
import { DownOutlined, DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { RESULTS_PAGE_SIZE } from '@crawldeck/shared';
import { downloadResults, useTaskResults, type TaskDetail } from '../api.ts';
import { ApiRequestError, failureText } from '../../../api/request.ts';

/** The download menu: CSV variants, then the other formats the server writes. */
const MENU = ['bom', 'raw', 'json', 'jsonl', 'xlsx'] as const;
type MenuKey = (typeof MENU)[number];
const MENU_LABEL: Record<MenuKey, string> = {
  bom: 'results.downloadBom',
  raw: 'results.downloadRaw',
  json: 'results.downloadJson',
  jsonl: 'results.downloadJsonl',
  xlsx: 'results.downloadXlsx',
};

const HIDDEN = new Set(['_id']);

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export default function ResultsView({ task, active }: { task: TaskDetail; active: boolean }) {
  const { t } = useTranslation('tasks');
  const { message } = App.useApp();
  const [page, setPage] = useState(1);
  const [downloading, setDownloading] = useState(false);
  const results = useTaskResults(task._id, page, active);
  const rows = useMemo(() => results.data?.list ?? [], [results.data]);
  const columns = useMemo(
    () =>
      Object.keys(rows[0] ?? {})
        .filter((k) => !HIDDEN.has(k))
        .map((k) => ({
          title: k,
          dataIndex: k,
          key: k,
          render: (v: unknown) => {
            const s = cell(v);
            return (
              <span className="results-cell" title={s}>
                {s}
              </span>
            );
          },
        })),
    [rows],
  );

  const download = async (key: MenuKey | 'csv') => {
    setDownloading(true);
    try {
      if (key === 'bom' || key === 'raw' || key === 'csv')
        await downloadResults(task._id, 'csv', { bom: key === 'bom', keepFormulas: key === 'raw' });
      else await downloadResults(task._id, key);
    } catch (err) {
      // a refused call has its toast from the request helper already
      if (!(err instanceof ApiRequestError)) void message.error(failureText(err));
    } finally {
      setDownloading(false);
    }
  };

  return (
    <div className="results-panel" data-testid="results-panel">
      <div className="results-toolbar">
        <Typography.Text type="secondary" data-testid="results-total">
          {t('results.total', { count: results.data?.total ?? 0 })}
        </Typography.Text>
        <span>
          <Tooltip title={t('refresh')}>
            <Button
              icon={<ReloadOutlined />}
              onClick={() => void results.refetch()}
              loading={results.isFetching}
              style={{ marginRight: 8 }}
            />
          </Tooltip>
          <Space.Compact>
            <Button
              type="primary"
              icon={<DownloadOutlined />}
              loading={downloading}
              disabled={!results.data?.total}
              onClick={() => void download('csv')}
              data-testid="results-download"
            >
              {t('results.download')}
            </Button>
            <Dropdown
              trigger={['click']}
              disabled={!results.data?.total || downloading}
              menu={{
                items: MENU.map((key) => ({
                  key,
                  label: <span data-testid={`results-download-${key}`}>{t(MENU_LABEL[key])}</span>,
                })),
                onClick: ({ key }) => void download(key as MenuKey),
              }}
            >
              <Button
                type="primary"
                icon={<DownOutlined />}
                aria-label={t('results.downloadOptions')}
                data-testid="results-download-more"
              />
            </Dropdown>
          </Space.Compact>
        </span>
      </div>
      <Table<Record<string, unknown>>
        rowKey={(r) => String(r._id)}
        size="small"
        columns={columns}
        dataSource={rows}
        loading={results.isLoading}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: <Empty description={t('results.empty')} /> }}
        pagination={{
          current: page,
          pageSize: RESULTS_PAGE_SIZE,
          total: results.data?.total ?? 0,
          onChange: setPage,
          showSizeChanger: false,
        }}
        data-testid="results-table"
      />
    </div>
  );
}
