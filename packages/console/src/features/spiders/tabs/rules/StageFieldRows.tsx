/** The fields of one stage of the Rules form: name, selector, attribute, the stage it leads to, a remark. */
import { Button, Form, Input, Select } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { RulesStage } from '../rulesModel.ts';
import { SELECTOR_KINDS } from './selectorKinds.ts';

interface StageFieldRowsProps {
  /** The stage's index in the form's stage list. */
  stageIndex: number;
  /** The stage's current values (for the duplicate-name check and the next-stage choices). */
  st: RulesStage | undefined;
  stageNames: string[];
}

export default function StageFieldRows({ stageIndex, st, stageNames }: StageFieldRowsProps) {
  const { t } = useTranslation('configSpider');
  const si = stageIndex;
  return (
    <Form.List name={[si, 'fields']}>
      {(fieldItems, { add: addField, remove: removeField }) => (
        <div className="rules-fields" data-tour={si === 0 ? 'config-fields' : undefined}>
          <div className="rules-fields-head">
            <span>{t('configSpider:fieldName')}</span>
            <span>{t('configSpider:selectorKind')}</span>
            <span>{t('configSpider:selector')}</span>
            <span>{t('configSpider:attr')}</span>
            <span>{t('configSpider:nextStage')}</span>
            <span>{t('configSpider:remark')}</span>
            <span />
          </div>
          {fieldItems.map((fi) => (
            <div className="rules-field-row" key={fi.key} data-testid="rules-field">
              <Form.Item
                name={[fi.name, 'name']}
                rules={[
                  { required: true, whitespace: true, message: t('configSpider:fieldNameRequired') },
                  {
                    validator: (_, v: string) =>
                      v && (st?.fields ?? []).filter((f) => f?.name?.trim() === v.trim()).length > 1
                        ? Promise.reject(new Error(t('configSpider:fieldNameTwice')))
                        : Promise.resolve(),
                  },
                ]}
              >
                <Input className="mono-input" placeholder="title" data-testid="rules-field-name" />
              </Form.Item>
              <Form.Item name={[fi.name, 'sel']}>
                <Select options={SELECTOR_KINDS} data-testid="rules-field-sel" />
              </Form.Item>
              <Form.Item name={[fi.name, 'selector']}>
                <Input
                  className="mono-input"
                  placeholder={t('configSpider:selectorPlaceholder')}
                  data-testid="rules-field-selector"
                />
              </Form.Item>
              <Form.Item name={[fi.name, 'attr']}>
                <Input
                  className="mono-input"
                  placeholder={t('configSpider:attrPlaceholder')}
                  data-testid="rules-field-attr"
                />
              </Form.Item>
              <Form.Item name={[fi.name, 'next_stage']}>
                <Select
                  allowClear
                  placeholder="-"
                  options={stageNames.filter((n) => n !== st?.name).map((n) => ({ value: n, label: n }))}
                  data-testid="rules-field-next"
                />
              </Form.Item>
              <Form.Item name={[fi.name, 'remark']}>
                <Input placeholder={t('configSpider:remarkPlaceholder')} />
              </Form.Item>
              <Button
                type="text"
                danger
                icon={<DeleteOutlined />}
                disabled={fieldItems.length <= 1}
                onClick={() => removeField(fi.name)}
                aria-label={t('configSpider:removeField')}
                data-testid="rules-field-remove"
              />
            </div>
          ))}
          <Button
            type="dashed"
            size="small"
            icon={<PlusOutlined />}
            onClick={() => addField({ name: '', sel: 'css' })}
            data-tour={si === 0 ? 'config-add-field' : undefined}
            data-testid="rules-field-add"
          >
            {t('configSpider:addField')}
          </Button>
        </div>
      )}
    </Form.List>
  );
}
