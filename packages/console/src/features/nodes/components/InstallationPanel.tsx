/**
 * Installation tab of a node: its languages (Installed with version / Not Installed / Installing) and its pip and
 * npm packages, with install, upgrade and uninstall for administrators, and the latest jobs with their live log.
 * A normal user sees the states only.
 */
import { App, Alert, Card, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { EnvJobBody, NodeInfo } from '@crawldeck/shared';
import { useUserStore } from '../../../app/stores/user.ts';
import { useEnvJobs, useNodeEnvironment, useStartEnvJob } from '../../environments/api.ts';
import EnvJobsList from './EnvJobsList.tsx';
import EnvSettingsCard from './EnvSettingsCard.tsx';
import LanguagesTable from './LanguagesTable.tsx';
import PackagesTable from './PackagesTable.tsx';

export default function InstallationPanel({ node }: { node: NodeInfo }) {
  const { t } = useTranslation('environments');
  const { message } = App.useApp();
  const isAdmin = useUserStore((s) => s.role) === 'admin';
  const env = useNodeEnvironment(node._id);
  const jobs = useEnvJobs(node._id, isAdmin);
  const startJob = useStartEnvJob();
  const start = (body: EnvJobBody) =>
    startJob.mutate(body, { onSuccess: (started) => void message.success(t('started', { count: started.length })) });
  const data = env.data;
  const python = data?.languages.find((l) => l.key === 'python');
  const busy = data && [...data.languages, ...data.pip, ...data.npm].some((x) => x.state === 'installing');
  if (busy && isAdmin && !jobs.isFetching && !jobs.data?.some((j) => j.status === 'pending' || j.status === 'running'))
    void jobs.refetch();
  return (
    <div className="node-installation" data-testid="node-installation">
      <Typography.Paragraph type="secondary">
        {t('intro')} {!isAdmin && t('adminOnly')}
      </Typography.Paragraph>
      {node.status === 'offline' ? (
        <Alert
          type="warning"
          showIcon
          data-testid="env-node-offline"
          message={t('nodeOffline', { status: t('nodes:status.offline') })}
          style={{ marginBottom: 12 }}
        />
      ) : (
        data && !data.reported_ts && <Alert type="info" showIcon message={t('noReport')} style={{ marginBottom: 12 }} />
      )}
      {data && (
        <Typography.Paragraph>
          {t('packageManager')}: <code>{data.package_manager || t('none')}</code>
          {node.systemInfo?.python && (
            <span data-testid="env-tasks-python">
              {' · '}
              {t('tasksRunWith')}: <code>{node.systemInfo.python}</code>
              {python?.version && ` (Python ${python.version})`}
            </span>
          )}
        </Typography.Paragraph>
      )}
      <Card size="small" title={t('sections.languages')} style={{ marginBottom: 12 }}>
        <LanguagesTable
          languages={data?.languages ?? []}
          isAdmin={isAdmin}
          nodeId={node._id}
          nodeName={node.name}
          packageManager={data?.package_manager ?? ''}
          start={start}
        />
      </Card>
      <Card size="small" title={t('sections.pip')} style={{ marginBottom: 12 }}>
        <PackagesTable
          target="pip"
          packages={data?.pip ?? []}
          isAdmin={isAdmin}
          nodeId={node._id}
          nodeName={node.name}
          start={start}
        />
      </Card>
      <Card size="small" title={t('sections.npm')} style={{ marginBottom: 12 }}>
        <PackagesTable
          target="npm"
          packages={data?.npm ?? []}
          isAdmin={isAdmin}
          nodeId={node._id}
          nodeName={node.name}
          start={start}
        />
      </Card>
      {isAdmin && (
        <Card size="small" title={t('sections.jobs')} style={{ marginBottom: 12 }}>
          <EnvJobsList jobs={jobs.data ?? []} />
        </Card>
      )}
      {isAdmin && <EnvSettingsCard />}
    </div>
  );
}
