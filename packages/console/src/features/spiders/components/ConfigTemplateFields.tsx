/**
 * Extra fields of the add-spider dialog for a configurable spider: the Spiderfile template from
 * GET /config_spiders_templates and the start URL; the dialog then creates it with PUT /config_spiders.
 */
import { Col, Form, Input, Row, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useConfigTemplates } from '../toolsApi.ts';

export default function ConfigTemplateFields() {
  const { t } = useTranslation('configSpider');
  const templates = useConfigTemplates();
  return (
    <Row gutter={16}>
      <Col span={12}>
        <Form.Item name="template" label={t('template')} tooltip={t('templateHint')} initialValue="list">
          <Select
            loading={templates.isLoading}
            data-testid="spider-template"
            optionLabelProp="title"
            options={(templates.data ?? []).map((x) => ({
              value: x.name,
              title: x.title,
              label: (
                <div className="config-template-option">
                  <div>{x.title}</div>
                  <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'normal' }}>
                    {x.description}
                  </Typography.Text>
                </div>
              ),
            }))}
          />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          name="start_url"
          label={t('startUrl')}
          rules={[{ pattern: /^https?:\/\/\S+$/i, message: t('startUrlPattern') }]}
        >
          <Input className="mono-input" placeholder="https://example.com/list" data-testid="spider-start-url" />
        </Form.Item>
      </Col>
    </Row>
  );
}
