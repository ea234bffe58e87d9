/** The first rows the Rules form would extract, with the preview crawl's log. */
import { Alert, Card, Collapse, Empty, Table, Typography } from 'antd';
import { CaretRightOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { PreviewResult } from '../../toolsApi.ts';

export default function RulesPreview({
  preview,
  previewError,
}: {
  preview: PreviewResult | null;
  previewError: string;
}) {
  const { t } = useTranslation('configSpider');
  const previewColumns = preview?.rows.length
    ? Object.keys(preview.rows[0]).map((k) => ({
        title: k,
        dataIndex: k,
        key: k,
        ellipsis: { showTitle: true },
        render: (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)),
      }))
    : [];

  return (
    <Card
      size="small"
      className="rules-preview"
      title={t('configSpider:previewTitle')}
      data-testid="rules-preview-result"
    >
      {previewError ? (
        <Alert type="error" showIcon message={t('configSpider:previewFailed')} description={previewError} />
      ) : preview && preview.rows.length ? (
        <>
          <Typography.Paragraph type="secondary">
            {t('configSpider:previewSummary', { rows: preview.rows.length, requests: preview.stats.requests ?? 0 })}
          </Typography.Paragraph>
          <Table
            size="small"
            rowKey={(_, i) => String(i)}
            dataSource={preview.rows}
            columns={previewColumns}
            pagination={false}
            scroll={{ x: true }}
            data-testid="rules-preview-table"
          />
        </>
      ) : (
        <Empty description={t('configSpider:previewEmpty')} />
      )}
      {preview && preview.log.length > 0 && (
        <Collapse
          ghost
          size="small"
          expandIcon={({ isActive }) => <CaretRightOutlined rotate={isActive ? 90 : 0} />}
          items={[
            {
              key: 'log',
              label: t('configSpider:previewLog'),
              children: <pre className="rules-preview-log">{preview.log.join('\n')}</pre>,
            },
          ]}
        />
      )}
    </Card>
  );
}
