/**
 * What a merging Git sync did: the files it updated, added and deleted, the console edits it kept, and the
 * conflicts (changed on both sides) with a choice per file: keep the console's version or take upstream's.
 */
import { useState } from 'react';
import { Alert, App, Button, Space, Table, Tag, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { GitConflict, GitResolveBody, GitSyncChanges as Changes } from '@crawldeck/shared';
import { api } from '../../../api/request.ts';
import { spiderKeys } from '../api.ts';
import { errorText } from '../toolsApi.ts';

type Choice = GitResolveBody['choice'];

function FileList({ label, files, color }: { label: string; files: string[]; color?: string }) {
  if (!files.length) return null;
  return (
    <div className="git-change-group">
      <Tag color={color}>
        {label} · {files.length}
      </Tag>
      <Typography.Text className="mono-text" type="secondary">
        {files.join(', ')}
      </Typography.Text>
    </div>
  );
}

export default function GitSyncChanges({ spiderId, changes }: { spiderId: string; changes: Changes }) {
  const { t } = useTranslation('git');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [resolved, setResolved] = useState<Record<string, Choice>>({});
  const [busy, setBusy] = useState<string | null>(null);

  const resolve = async (path: string, choice: Choice) => {
    setBusy(path);
    try {
      await api.post(`/spiders/${spiderId}/git/resolve`, { path, choice }, { silent: true });
      setResolved((r) => ({ ...r, [path]: choice }));
      void queryClient.invalidateQueries({ queryKey: spiderKeys.all });
    } catch (err) {
      void message.error(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="git-sync-changes" data-testid="git-sync-changes">
      <FileList label={t('changes.updated')} files={changes.updated} color="blue" />
      <FileList label={t('changes.added')} files={changes.added} color="green" />
      <FileList label={t('changes.deleted')} files={changes.deleted} color="red" />
      <FileList label={t('changes.kept')} files={changes.kept} />
      {changes.conflicts.length > 0 && (
        <>
          <Alert
            type="warning"
            showIcon
            message={t('changes.conflictsHint', { count: changes.conflicts.length })}
            style={{ margin: '8px 0' }}
          />
          <Table<GitConflict>
            size="small"
            rowKey="path"
            pagination={false}
            dataSource={changes.conflicts}
            columns={[
              {
                title: t('changes.file'),
                dataIndex: 'path',
                render: (p: string) => <span className="mono-text">{p}</span>,
              },
              {
                title: t('changes.kind'),
                dataIndex: 'kind',
                render: (k: GitConflict['kind']) => t(`changes.kinds.${k}`),
              },
              {
                title: t('changes.choice'),
                render: (_: unknown, c: GitConflict) =>
                  resolved[c.path] ? (
                    <Tag color="success">
                      {t(resolved[c.path] === 'mine' ? 'changes.keptMine' : 'changes.tookTheirs')}
                    </Tag>
                  ) : (
                    <Space>
                      <Button
                        size="small"
                        loading={busy === c.path}
                        onClick={() => void resolve(c.path, 'mine')}
                        data-testid="git-keep-mine"
                      >
                        {t('changes.keepMine')}
                      </Button>
                      <Button
                        size="small"
                        loading={busy === c.path}
                        onClick={() => void resolve(c.path, 'theirs')}
                        data-testid="git-take-theirs"
                      >
                        {t('changes.takeTheirs')}
                      </Button>
                    </Space>
                  ),
              },
            ]}
          />
        </>
      )}
    </div>
  );
}
