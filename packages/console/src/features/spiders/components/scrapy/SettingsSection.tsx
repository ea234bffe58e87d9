/** The project's settings.py as a table: typed value editors, key autocomplete from Scrapy's known settings. */
import { useEffect, useMemo, useState, type HTMLAttributes } from 'react';
import { App, Button, Input, Table, Typography } from 'antd';
import { PlusOutlined, SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { SCRAPY_SETTING_TYPES, type ScrapySetting, type ScrapySettingType } from '@crawldeck/shared';
import { useScrapySection } from '../../toolsApi.ts';
import type { Spider } from '../../types.ts';
import { fromDraft, objectProblem, toDraft } from '../ScrapySettingValue.tsx';
import { IDENT, nextRowUid, SectionError, SectionToolbar, useSectionError, useSectionSave } from './scrapySection.tsx';
import { useSettingColumns, type SettingRow } from './useSettingColumns.tsx';

const toRows = (list: ScrapySetting[]): SettingRow[] =>
  list.map((s) => ({
    uid: nextRowUid(),
    key: s.key,
    type: s.type,
    expression: s.expression,
    value: toDraft(s.type, s.value, s.expression),
  }));

export default function SettingsSection({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const query = useScrapySection(id, 'settings');
  const [error, setError] = useSectionError(query);
  const [rows, setRows] = useState<SettingRow[]>([]);
  const [dirty, setDirty] = useState(false);
  const { saving, persist } = useSectionSave(id, 'settings', setError, t('settings.saved'));
  const [filter, setFilter] = useState('');

  useEffect(() => {
    if (query.data) {
      setRows(toRows(query.data));
      setDirty(false);
    }
  }, [query.data]);

  const patch = (uid: number, p: Partial<SettingRow>) => {
    setRows((rs) => rs.map((r) => (r.uid === uid ? { ...r, ...p } : r)));
    setDirty(true);
  };

  const setKey = (row: SettingRow, key: string) => {
    const known = SCRAPY_SETTING_TYPES[key];
    if (known && known !== row.type && !row.expression)
      patch(row.uid, { key, type: known, value: toDraft(known, fromDraftSafe(row)) });
    else patch(row.uid, { key });
  };

  const setType = (row: SettingRow, type: ScrapySettingType) =>
    patch(row.uid, { type, value: toDraft(type, fromDraftSafe(row)) });

  const problems = useMemo(() => {
    const out = new Map<number, string>();
    const seen = new Set<string>();
    for (const r of rows) {
      const k = r.key.trim();
      if (!k) out.set(r.uid, t('settings.keyRequired'));
      else if (!IDENT.test(k)) out.set(r.uid, t('identifier'));
      else if (seen.has(k)) out.set(r.uid, t('settings.keyTwice', { key: k }));
      else if (!r.expression && r.type === 'object' && objectProblem(r.value)) out.set(r.uid, t('settings.badJson'));
      else if (!r.expression && r.type === 'number' && (r.value === null || r.value === ''))
        out.set(r.uid, t('settings.badNumber'));
      seen.add(k);
    }
    return out;
  }, [rows, t]);

  const save = async () => {
    if (problems.size) {
      void message.error(t('fixRows'));
      return;
    }
    await persist(
      rows.map((r) => ({
        key: r.key.trim(),
        type: r.type,
        value: fromDraft(r.type, r.value, r.expression),
        ...(r.expression ? { expression: true } : {}),
      })),
    );
  };

  const remove = (row: SettingRow) => {
    setRows((rs) => rs.filter((x) => x.uid !== row.uid));
    setDirty(true);
  };
  const columns = useSettingColumns({ problems, setKey, setType, patch, remove });

  const shown = filter ? rows.filter((r) => r.key.toLowerCase().includes(filter.toLowerCase())) : rows;

  return (
    <div className="scrapy-section" data-testid="scrapy-settings">
      <SectionError section="settings" error={error} />
      <SectionToolbar onReload={() => void query.refetch()} loading={query.isFetching}>
        <Input.Search
          allowClear
          placeholder={t('settings.filter')}
          onChange={(e) => setFilter(e.target.value)}
          style={{ width: 220 }}
        />
        <Button
          icon={<PlusOutlined />}
          onClick={() => {
            setRows((rs) => [...rs, { uid: nextRowUid(), key: '', type: 'string', value: '' }]);
            setFilter('');
            setDirty(true);
          }}
          data-testid="scrapy-setting-add"
        >
          {t('settings.add')}
        </Button>
        <Button
          type="primary"
          icon={<SaveOutlined />}
          onClick={() => void save()}
          loading={saving}
          disabled={!query.data && !rows.length}
          data-testid="scrapy-settings-save"
        >
          {t('save')}
        </Button>
        {dirty && <Typography.Text className="scrapy-unsaved">{t('unsaved')}</Typography.Text>}
      </SectionToolbar>
      <Table<SettingRow>
        size="small"
        rowKey="uid"
        className="scrapy-settings-table"
        loading={query.isLoading}
        dataSource={shown}
        pagination={false}
        scroll={{ y: 480 }}
        onRow={(r) => ({ 'data-key': r.key }) as HTMLAttributes<HTMLElement>}
        columns={columns}
      />
    </div>
  );
}

function fromDraftSafe(r: SettingRow): unknown {
  try {
    return fromDraft(r.type, r.value, r.expression);
  } catch {
    return r.value;
  }
}
