/** The settings table's columns: key with autocomplete and its problem, type (or an expression), value, remove. */
import { AutoComplete, Button, Select, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { DeleteOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { SCRAPY_SETTING_NAMES, SCRAPY_SETTING_TYPES, type ScrapySettingType } from '@crawldeck/shared';
import ScrapySettingValue, { type DraftValue } from '../ScrapySettingValue.tsx';

const SETTING_TYPES: ScrapySettingType[] = ['string', 'number', 'boolean', 'array', 'object'];

/** One setting as edited: the value is a draft until saved; an expression is Python kept as written. */
export interface SettingRow {
  uid: number;
  key: string;
  type: ScrapySettingType;
  value: DraftValue;
  expression?: boolean;
}

interface Options {
  /** What is wrong with a row, by its uid. */
  problems: Map<number, string>;
  setKey(row: SettingRow, key: string): void;
  setType(row: SettingRow, type: ScrapySettingType): void;
  patch(uid: number, p: Partial<SettingRow>): void;
  remove(row: SettingRow): void;
}

export function useSettingColumns({ problems, setKey, setType, patch, remove }: Options): TableColumnsType<SettingRow> {
  const { t } = useTranslation('scrapy');
  return [
    {
      title: t('settings.key'),
      dataIndex: 'key',
      width: '34%',
      render: (_, r) => (
        <div>
          <AutoComplete
            className="mono-input"
            style={{ width: '100%' }}
            value={r.key}
            status={problems.has(r.uid) ? 'error' : undefined}
            options={settingOptions(r.key)}
            onChange={(k: string) => setKey(r, k)}
            placeholder="DOWNLOAD_DELAY"
            data-testid="setting-key"
          />
          {problems.has(r.uid) && (
            <Typography.Text type="danger" className="scrapy-row-problem">
              {problems.get(r.uid)}
            </Typography.Text>
          )}
        </div>
      ),
    },
    {
      title: t('settings.type'),
      dataIndex: 'type',
      width: 130,
      render: (_, r) =>
        r.expression ? (
          <Tooltip title={t('settings.expressionHint')}>
            <Tag color="gold">{t('settings.expression')}</Tag>
          </Tooltip>
        ) : (
          <Select
            size="small"
            style={{ width: '100%' }}
            value={r.type}
            onChange={(v) => setType(r, v)}
            options={SETTING_TYPES.map((x) => ({ value: x, label: t(`types.${x}`) }))}
            data-testid="setting-type"
          />
        ),
    },
    {
      title: t('settings.value'),
      dataIndex: 'value',
      render: (_, r) => (
        <ScrapySettingValue
          type={r.type}
          value={r.value}
          expression={r.expression}
          onChange={(v) => patch(r.uid, { value: v })}
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
          onClick={() => remove(r)}
          data-testid="setting-remove"
        />
      ),
    },
  ];
}

function settingOptions(input: string) {
  const q = input.trim().toUpperCase();
  const names = q ? SCRAPY_SETTING_NAMES.filter((n) => n.includes(q)) : SCRAPY_SETTING_NAMES;
  return names.slice(0, 60).map((n) => ({
    value: n,
    label: (
      <span className="scrapy-key-option">
        <span className="mono-text">{n}</span>
        <span className="scrapy-key-type">{SCRAPY_SETTING_TYPES[n]}</span>
      </span>
    ),
  }));
}
