/** The node's latest environment jobs: who started what and when, the status, the failure and the live log. */
import { Alert, App, Button, Popconfirm, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { EnvJob, EnvJobReason } from '@crawldeck/shared';
import { formatTs } from '../../tasks/format.ts';
import { useCancelEnvJob } from '../../environments/api.ts';

const STATUS_COLOR: Record<string, string> = {
  pending: 'default',
  running: 'processing',
  done: 'success',
  failed: 'error',
};

/** The catalogue message of a failed job: dependency or language, install or uninstall. */
export function failureKey(j: Pick<EnvJob, 'target' | 'action'>): string {
  if (j.target === 'language') return j.action === 'uninstall' ? 'failed.languageUninstall' : 'failed.language';
  return `failed.${j.action}`;
}

/** Cancel for a job that has not ended: the master cancels one that waits or whose node is not online. */
function CancelJob({ job }: { job: EnvJob }) {
  const { t } = useTranslation('environments');
  const { message } = App.useApp();
  const cancel = useCancelEnvJob();
  return (
    <Popconfirm
      title={t('cancelJob.confirm', { name: job.name, node: job.node_name || job.node_id })}
      onConfirm={() =>
        // a refusal is already told by the request helper's toast
        cancel.mutate(job._id, { onSuccess: () => void message.success(t('cancelJob.done')) })
      }
    >
      <Button size="small" danger loading={cancel.isPending} data-testid={`env-job-cancel-${job._id}`}>
        {t('cancelJob.button')}
      </Button>
    </Popconfirm>
  );
}

export default function EnvJobsList({ jobs }: { jobs: EnvJob[] }) {
  const { t } = useTranslation('environments');
  // An offline node is named with the word of its status tag, so the tab says it one way only.
  const reasonText = (r: EnvJobReason) => t(`jobReason.${r.kind}`, { ...r, status: t('nodes:status.offline') });
  return (
    <Table
      rowKey="_id"
      size="small"
      data-testid="env-jobs"
      pagination={false}
      locale={{ emptyText: t('noJobs') }}
      dataSource={jobs}
      expandable={{
        rowExpandable: (j) => !!j.log || !!j.error,
        expandedRowRender: (j) => (
          <>
            {j.status === 'failed' && (
              <Alert
                type="error"
                showIcon
                message={t(failureKey(j))}
                description={
                  <>
                    {j.reason && (
                      <Typography.Paragraph data-testid="env-job-reason">{reasonText(j.reason)}</Typography.Paragraph>
                    )}
                    <pre className="env-job-error">{j.error}</pre>
                  </>
                }
                style={{ marginBottom: 8 }}
              />
            )}
            <pre
              className="env-job-log"
              data-testid="env-job-log"
              style={{ maxHeight: 320, overflow: 'auto', fontSize: 12 }}
            >
              {j.log}
            </pre>
          </>
        ),
      }}
      columns={[
        {
          title: t('fields.name'),
          dataIndex: 'name',
          render: (n: string, j) => (
            <span>
              <Tag>{j.target}</Tag>
              {n}
              {j.version ? ` ${j.version}` : ''}
            </span>
          ),
        },
        { title: t('fields.action'), dataIndex: 'action', width: 90, render: (a: string) => t(`jobAction.${a}`) },
        {
          title: t('fields.state'),
          dataIndex: 'status',
          width: 220,
          render: (s: string, j) => (
            <span data-testid={`env-job-status-${s}`}>
              <Tag color={STATUS_COLOR[s]}>{t(`jobStatus.${s}`)}</Tag>
              {s === 'failed' && <Typography.Text type="danger">{t(failureKey(j))}</Typography.Text>}
            </span>
          ),
        },
        { title: t('fields.user'), dataIndex: 'username', width: 110 },
        { title: t('fields.created'), dataIndex: 'create_ts', width: 170, render: (ts: string | null) => formatTs(ts) },
        {
          title: '',
          key: 'cancel',
          width: 90,
          render: (_: unknown, j) => (j.status === 'pending' || j.status === 'running' ? <CancelJob job={j} /> : null),
        },
      ]}
    />
  );
}
