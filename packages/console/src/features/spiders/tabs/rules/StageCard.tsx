/** One stage of the Rules form: its name, list and pagination selectors, and its fields. */
import { Button, Card, Col, Form, Input, Row, Select, Space, Switch, Tag } from 'antd';
import { DeleteOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { RulesStage } from '../rulesModel.ts';
import { SELECTOR_KINDS } from './selectorKinds.ts';
import StageFieldRows from './StageFieldRows.tsx';

interface StageCardProps {
  /** The stage's index in the form's stage list. */
  si: number;
  st: RulesStage | undefined;
  stages: RulesStage[] | undefined;
  stageNames: string[];
  canRemove: boolean;
  onRemove: () => void;
}

export default function StageCard({ si, st, stages, stageNames, canRemove, onRemove }: StageCardProps) {
  const { t } = useTranslation('configSpider');
  const startStage = Form.useWatch('start_stage') as string | undefined;
  return (
    <Card
      size="small"
      className="rules-stage"
      data-testid="rules-stage"
      title={
        <Space>
          <span>{t('configSpider:stage', { n: si + 1 })}</span>
          {st?.name && <Tag className="mono-tag">{st.name}</Tag>}
          {st?.is_list && <Tag color="blue">{t('configSpider:list')}</Tag>}
          {st?.name && st.name === startStage && <Tag color="green">{t('configSpider:startTag')}</Tag>}
        </Space>
      }
      extra={
        <Button
          type="text"
          danger
          size="small"
          icon={<DeleteOutlined />}
          disabled={!canRemove}
          onClick={() => onRemove()}
          data-testid="rules-stage-remove"
        >
          {t('configSpider:removeStage')}
        </Button>
      }
    >
      <Row gutter={12}>
        <Col xs={24} md={6}>
          <Form.Item
            name={[si, 'name']}
            label={t('configSpider:stageName')}
            rules={[
              { required: true, whitespace: true, message: t('configSpider:stageNameRequired') },
              { pattern: /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, message: t('configSpider:stageNamePattern') },
              {
                validator: (_, v: string) =>
                  v && (stages ?? []).filter((s) => s?.name?.trim() === v.trim()).length > 1
                    ? Promise.reject(new Error(t('configSpider:stageNameTwice')))
                    : Promise.resolve(),
              },
            ]}
          >
            <Input className="mono-input" data-testid="rules-stage-name" />
          </Form.Item>
        </Col>
        <Col xs={8} md={3}>
          <Form.Item name={[si, 'is_list']} label={t('configSpider:isList')} valuePropName="checked">
            <Switch data-testid="rules-stage-is-list" />
          </Form.Item>
        </Col>
        {st?.is_list && (
          <Col xs={16} md={7}>
            <Form.Item label={t('configSpider:listSelector')} tooltip={t('configSpider:listSelectorHint')} required>
              <div className="rules-selector-pair">
                <Form.Item name={[si, 'list_sel']} noStyle>
                  <Select options={SELECTOR_KINDS} />
                </Form.Item>
                <Form.Item
                  name={[si, 'list_selector']}
                  noStyle
                  rules={[{ required: true, whitespace: true, message: t('configSpider:listSelectorRequired') }]}
                >
                  <Input className="mono-input" placeholder="ul > li" data-testid="rules-list-selector" />
                </Form.Item>
              </div>
            </Form.Item>
          </Col>
        )}
        <Col xs={16} md={st?.is_list ? 5 : 9}>
          <Form.Item label={t('configSpider:pageSelector')} tooltip={t('configSpider:pageSelectorHint')}>
            <div className="rules-selector-pair">
              <Form.Item name={[si, 'page_sel']} noStyle>
                <Select options={SELECTOR_KINDS} />
              </Form.Item>
              <Form.Item name={[si, 'page_selector']} noStyle>
                <Input className="mono-input" placeholder="a.next" data-testid="rules-page-selector" />
              </Form.Item>
            </div>
          </Form.Item>
        </Col>
        <Col xs={8} md={3}>
          <Form.Item name={[si, 'page_attr']} label={t('configSpider:pageAttr')}>
            <Input className="mono-input" placeholder="href" disabled={!st?.page_selector} />
          </Form.Item>
        </Col>
      </Row>
      <StageFieldRows stageIndex={si} st={st} stageNames={stageNames} />
    </Card>
  );
}
