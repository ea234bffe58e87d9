/** The project's item pipelines: ITEM_PIPELINES of settings.py with priorities, switched on or off. */
import { useEffect, useState } from 'react';
import { App, Button, Empty, Input, InputNumber, Space, Switch, Table, Tag, Tooltip, Typography } from 'antd';
import { DeleteOutlined, PlusOutlined, SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ScrapyPipeline } from '@crawldeck/shared';
import { useScrapySection } from '../../toolsApi.ts';
import type { Spider } from '../../types.ts';
import { nextRowUid, SectionError, SectionToolbar, useSectionError, useSectionSave } from './scrapySection.tsx';

interface PipelineRow extends ScrapyPipeline {
  uid: number;
}

export default function PipelinesSection({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const query = useScrapySection(id, 'pipelines');
  const [error, setError] = useSectionError(query);
  const [rows, setRows] = useState<PipelineRow[]>([]);
  const [dirty, setDirty] = useState(false);
  const { saving, persist } = useSectionSave(id, 'pipelines', setError, t('pipelines.saved'), ['settings']);
  const [newName, setNewName] = useState('');

  useEffect(() => {
    if (query.data) {
      setRows(query.data.map((p) => ({ ...p, uid: nextRowUid() })));
      setDirty(false);
    }
  }, [query.data]);

  const patch = (uid: number, p: Partial<PipelineRow>) => {
    setRows((rs) => rs.map((r) => (r.uid === uid ? { ...r, ...p } : r)));
    setDirty(true);
  };

  const validName = (n: string) => /^[A-Za-z_][A-Za-z0-9_.]*$/.test(n);

  const add = () => {
    const n = newName.trim();
    if (!validName(n)) return void message.error(t('pipelines.badName'));
    if (rows.some((r) => r.name === n)) return void message.error(t('pipelines.twice', { name: n }));
    const max = Math.max(0, ...rows.map((r) => r.priority ?? 0));
    setRows((rs) => [
      ...rs,
      { uid: nextRowUid(), name: n, priority: Math.min(1000, max + 100), enabled: true, defined: false },
    ]);
    setNewName('');
    setDirty(true);
  };

  // Pipelines live in settings.py's ITEM_PIPELINES: the settings section reloads too.
  const save = () => persist(rows.map((r) => ({ name: r.name, priority: r.priority ?? null, enabled: r.enabled })));

  return (
    <div className="scrapy-section" data-testid="scrapy-pipelines">
      <SectionError section="pipelines" error={error} />
      <Typography.Paragraph type="secondary" className="scrapy-hint">
        {t('pipelines.hint')}
      </Typography.Paragraph>
      <SectionToolbar onReload={() => void query.refetch()} loading={query.isFetching}>
        <Space.Compact>
          <Input
            className="mono-input"
            style={{ width: 320 }}
            placeholder="myproject.pipelines.MyPipeline"
            value={newName}
            onChange={(e) => setNewName(e.target.value)}
            onPressEnter={add}
            data-testid="pipeline-name"
          />
          <Button icon={<PlusOutlined />} onClick={add} data-testid="pipeline-add">
            {t('pipelines.add')}
          </Button>
        </Space.Compact>
        <Button
          type="primary"
          icon={<SaveOutlined />}
          onClick={() => void save()}
          loading={saving}
          data-testid="scrapy-pipelines-save"
        >
          {t('save')}
        </Button>
        {dirty && <Typography.Text className="scrapy-unsaved">{t('unsaved')}</Typography.Text>}
      </SectionToolbar>
      <Table<PipelineRow>
        size="small"
        rowKey="uid"
        loading={query.isLoading}
        dataSource={rows}
        pagination={false}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('pipelines.empty')} /> }}
        columns={[
          {
            title: t('pipelines.name'),
            dataIndex: 'name',
            render: (n: string, r) => (
              <Space size={6}>
                <Typography.Text className="mono-text">{n}</Typography.Text>
                {!r.defined && (
                  <Tooltip title={t('pipelines.notDefinedHint')}>
                    <Tag color="orange">{t('pipelines.notDefined')}</Tag>
                  </Tooltip>
                )}
              </Space>
            ),
          },
          {
            title: t('pipelines.priority'),
            dataIndex: 'priority',
            width: 140,
            render: (p: number | null, r) => (
              <InputNumber
                size="small"
                min={0}
                max={1000}
                precision={0}
                value={p}
                onChange={(v) => patch(r.uid, { priority: v === null ? null : Number(v) })}
                disabled={!r.enabled}
              />
            ),
          },
          {
            title: t('pipelines.enabled'),
            dataIndex: 'enabled',
            width: 100,
            render: (e: boolean, r) => (
              <Switch
                size="small"
                checked={e}
                onChange={(v) => patch(r.uid, { enabled: v, priority: v && r.priority === null ? 300 : r.priority })}
                data-testid="pipeline-enabled"
              />
            ),
          },
          {
            title: '',
            width: 48,
            render: (_, r) => (
              <Button
                type="text"
                danger
                icon={<DeleteOutlined />}
                aria-label={t('remove')}
                onClick={() => {
                  setRows((rs) => rs.filter((x) => x.uid !== r.uid));
                  setDirty(true);
                }}
              />
            ),
          },
        ]}
      />
    </div>
  );
}
