/** The first rows of the Rules form: start URL, start stage, engine and the crawl settings. */
import { Col, Form, Input, InputNumber, Row, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';

export default function RulesStartFields({ stageNames }: { stageNames: string[] }) {
  const { t } = useTranslation('configSpider');
  return (
    <>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <Form.Item
            name="start_url"
            label={t('configSpider:startUrl')}
            rules={[
              { required: true, whitespace: true, message: t('configSpider:startUrlRequired') },
              { pattern: /^https?:\/\/\S+$/i, message: t('configSpider:startUrlPattern') },
            ]}
            data-tour="config-start-url"
          >
            <Input className="mono-input" placeholder="https://example.com/list" data-testid="rules-start-url" />
          </Form.Item>
        </Col>
        <Col xs={12} md={6}>
          <Form.Item name="start_stage" label={t('configSpider:startStage')} data-tour="config-start-stage">
            <Select options={stageNames.map((n) => ({ value: n, label: n }))} data-testid="rules-start-stage" />
          </Form.Item>
        </Col>
        <Col xs={12} md={6}>
          <Form.Item
            name="engine"
            label={t('configSpider:engine')}
            tooltip={t('configSpider:engineHint')}
            data-tour="config-engine"
          >
            <Select options={[{ value: 'cheerio', label: 'cheerio (undici + CSS/XPath)' }]} />
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={16} data-tour="config-settings">
        <Col xs={12} md={5}>
          <Form.Item
            name="robots"
            label={t('configSpider:robots')}
            tooltip={t('configSpider:robotsHint')}
            valuePropName="checked"
          >
            <Switch data-testid="rules-robots" />
          </Form.Item>
        </Col>
        <Col xs={12} md={5}>
          <Form.Item name="delay" label={t('configSpider:delay')} tooltip={t('configSpider:delayHint')}>
            <InputNumber
              min={0}
              max={3600}
              step={0.5}
              style={{ width: '100%' }}
              addonAfter="s"
              data-testid="rules-delay"
            />
          </Form.Item>
        </Col>
        <Col xs={12} md={5}>
          <Form.Item name="max_pages" label={t('configSpider:maxPages')} tooltip={t('configSpider:maxPagesHint')}>
            <InputNumber min={1} max={100000} precision={0} style={{ width: '100%' }} data-testid="rules-max-pages" />
          </Form.Item>
        </Col>
        <Col xs={24} md={9}>
          <Form.Item name="user_agent" label="User-Agent">
            <Input placeholder={t('configSpider:userAgentDefault')} />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}
