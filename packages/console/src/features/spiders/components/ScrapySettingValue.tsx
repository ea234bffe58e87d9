/** Typed editor of one Scrapy setting value: string, number, boolean, array (tags), object (JSON). */
import { useEffect, useState } from 'react';
import { Input, InputNumber, Select, Switch, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ScrapySettingType } from '@crawldeck/shared';

/** Draft value per type: JSON (object) is kept as its text so half-typed JSON is not lost. */
export type DraftValue = string | number | boolean | string[] | null;

/** Converts a stored JSON value into the draft of a type (used on load and when the type changes). */
export function toDraft(type: ScrapySettingType, value: unknown, expression?: boolean): DraftValue {
  if (expression) return typeof value === 'string' ? value : JSON.stringify(value);
  switch (type) {
    case 'string':
      return value == null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    case 'number': {
      const n = typeof value === 'number' ? value : Number(value);
      return Number.isFinite(n) ? n : null;
    }
    case 'boolean':
      return value === true || value === 'true' || value === 'True' || value === 1;
    case 'array':
      if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      if (typeof value === 'string' && value.trim())
        return value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
      return [];
    case 'object':
      if (value && typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(value, null, 2);
      if (typeof value === 'string' && value.trim().startsWith('{')) return value;
      return '{}';
  }
}

/** Problem of an object draft ('' when it is a JSON object). */
export function objectProblem(text: unknown): string {
  if (typeof text !== 'string') return 'invalid';
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? '' : 'notObject';
  } catch (err) {
    return (err as Error).message;
  }
}

/** Draft → the JSON value sent to the server. */
export function fromDraft(type: ScrapySettingType, draft: DraftValue, expression?: boolean): unknown {
  if (expression) return String(draft ?? '');
  if (type === 'object') return JSON.parse(String(draft));
  if (type === 'number') return draft === null || draft === '' ? null : Number(draft);
  return draft;
}

interface Props {
  type: ScrapySettingType;
  value: DraftValue;
  expression?: boolean;
  onChange: (v: DraftValue) => void;
}

export default function ScrapySettingValue({ type, value, expression, onChange }: Props) {
  const { t } = useTranslation('scrapy');
  const [text, setText] = useState(typeof value === 'string' ? value : '');
  useEffect(() => {
    if (type === 'object' && typeof value === 'string') setText(value);
  }, [type, value]);

  if (expression) {
    return (
      <Input
        className="mono-input"
        value={String(value ?? '')}
        onChange={(e) => onChange(e.target.value)}
        data-testid="setting-value"
      />
    );
  }
  switch (type) {
    case 'number':
      return (
        <InputNumber
          className="mono-input"
          style={{ width: '100%' }}
          value={typeof value === 'number' ? value : null}
          onChange={(v) => onChange(v === null ? null : Number(v))}
          status={value === null ? 'error' : undefined}
          data-testid="setting-value"
        />
      );
    case 'boolean':
      return (
        <Switch
          checked={value === true}
          onChange={onChange}
          checkedChildren="True"
          unCheckedChildren="False"
          data-testid="setting-value"
        />
      );
    case 'array':
      return (
        <Select
          mode="tags"
          className="mono-input"
          style={{ width: '100%' }}
          value={Array.isArray(value) ? value : []}
          onChange={(v: string[]) => onChange(v)}
          tokenSeparators={[',']}
          open={false}
          suffixIcon={null}
          placeholder={t('arrayPlaceholder')}
          data-testid="setting-value"
        />
      );
    case 'object': {
      const problem = objectProblem(text);
      return (
        <div>
          <Input.TextArea
            className="mono-input scrapy-json"
            autoSize={{ minRows: 1, maxRows: 10 }}
            value={text}
            status={problem ? 'error' : undefined}
            onChange={(e) => {
              setText(e.target.value);
              onChange(e.target.value);
            }}
            data-testid="setting-value"
          />
          {problem && (
            <Typography.Text type="danger" className="scrapy-json-error">
              {problem === 'notObject' ? t('jsonNotObject') : t('jsonInvalid', { reason: problem })}
            </Typography.Text>
          )}
        </div>
      );
    }
    default:
      return (
        <Input
          className="mono-input"
          value={String(value ?? '')}
          onChange={(e) => onChange(e.target.value)}
          data-testid="setting-value"
        />
      );
  }
}
