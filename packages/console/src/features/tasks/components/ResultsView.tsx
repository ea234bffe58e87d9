/**
 * Task results: columns from the first row's keys, page size 10, Download CSV as data.csv (or, for Excel, with a
 * UTF-8 byte order mark so that Chinese text opens correctly). Cells that would run as spreadsheet formulas are
 * protected by the server; the options menu also offers the text exactly as crawled.
 */
import { useMemo, useState } from 'react';
import { App, Button, Dropdown, Empty, Space, Table, Tooltip, Typography } from 'antd';
import { DownOutlined, DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { RESULTS_PAGE_SIZE } from '@crawldeck/shared';
import { downloadResultsCsv, useTaskResults, type TaskDetail } from '../api.ts';

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

  const download = async (options: { bom?: boolean; keepFormulas?: boolean }) => {
    setDownloading(true);
    try {
      await downloadResultsCsv(task._id, options);
    } catch (err) {
      void message.error(String((err as Error).message));
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
              onClick={() => void download({})}
              data-testid="results-download"
            >
              {t('results.download')}
            </Button>
            <Dropdown
              trigger={['click']}
              disabled={!results.data?.total || downloading}
              menu={{
                items: [
                  { key: 'bom', label: <span data-testid="results-download-bom">{t('results.downloadBom')}</span> },
                  { key: 'raw', label: <span data-testid="results-download-raw">{t('results.downloadRaw')}</span> },
                ],
                onClick: ({ key }) => void download(key === 'raw' ? { keepFormulas: true } : { bom: true }),
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
