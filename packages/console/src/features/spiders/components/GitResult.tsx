/** What the repository holds after the last sync or reset: commit, branch, message, author, dates, file count. */
import { Descriptions, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { GitInfo, GitSyncResult } from '@crawldeck/shared';

/** A sync or reset made in this view, newer than what the stored Git info says. */
export type GitLastAction = GitSyncResult & { action: 'sync' | 'reset' };

const fmt = (v: string | null | undefined) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '-');

export default function GitResult({ info: g, last }: { info: GitInfo | undefined; last: GitLastAction | null }) {
  const { t } = useTranslation('git');
  const commit = last?.commit ?? g?.commit ?? null;
  const lastSync = last?.sync_ts ?? g?.last_sync_ts ?? null;
  return (
    <Descriptions size="small" bordered column={{ xs: 1, md: 2 }} className="git-result" data-testid="git-result">
      <Descriptions.Item label={t('commit')}>
        {commit ? (
          <Tooltip title={commit.hash}>
            <Typography.Text className="mono-text" copyable={{ text: commit.hash }} data-testid="git-commit-hash">
              {commit.hash.slice(0, 10)}
            </Typography.Text>
          </Tooltip>
        ) : (
          <Typography.Text type="secondary">{t('neverSynced')}</Typography.Text>
        )}
      </Descriptions.Item>
      <Descriptions.Item label={t('currentBranch')}>
        <span className="mono-text">{last?.branch ?? g?.branch ?? '-'}</span>
      </Descriptions.Item>
      <Descriptions.Item label={t('message')} span={2}>
        <span data-testid="git-commit-message">{commit?.message ?? '-'}</span>
      </Descriptions.Item>
      <Descriptions.Item label={t('author')}>{commit?.author ?? '-'}</Descriptions.Item>
      <Descriptions.Item label={t('date')}>{fmt(commit?.date)}</Descriptions.Item>
      <Descriptions.Item label={t('lastSync')}>
        <span data-testid="git-last-sync">{fmt(lastSync)}</span>
      </Descriptions.Item>
      <Descriptions.Item label={t('lastResult')}>
        {last ? t(last.action === 'sync' ? 'resultSync' : 'resultReset', { count: last.files }) : '-'}
      </Descriptions.Item>
    </Descriptions>
  );
}
