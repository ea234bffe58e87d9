/** Spider → Overview → Data Source: where the spider's later tasks write their items (built-in store or a database). */
import { useEffect } from 'react';
import { App, Button, Col, Divider, Form, Input, Row, Select, Typography } from 'antd';
import { SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { TABLE_NAME_PATTERN, type Spider, type SpiderTargetBody } from '@crawldeck/shared';
import { useDataSourceChoices, useSaveSpiderTarget, useSpiderTarget } from '../../setting/datasources.api.ts';

const TABLE = new RegExp(`^(${TABLE_NAME_PATTERN.slice(1, -1)})?$`);

export function DataSourcePicker({ spider }: { spider: Spider }) {
  const { t } = useTranslation(['datasources', 'common']);
  const { message } = App.useApp();
  const [form] = Form.useForm<SpiderTargetBody>();
  const choices = useDataSourceChoices();
  const target = useSpiderTarget(spider._id);
  const save = useSaveSpiderTarget(spider._id);
  const source = Form.useWatch('data_source_id', form);

  useEffect(() => {
    if (target.data)
      form.setFieldsValue({ data_source_id: target.data.data_source_id, result_table: target.data.result_table });
  }, [form, target.data]);

  const onSave = async (v: SpiderTargetBody) => {
    await save.mutateAsync({
      data_source_id: v.data_source_id ?? '',
      result_table: v.data_source_id ? (v.result_table?.trim() ?? '') : '',
    });
    void message.success(t('picker.saved'));
  };

  return (
    <Form<SpiderTargetBody>
      form={form}
      layout="vertical"
      onFinish={(v) => void onSave(v).catch(() => undefined)}
      data-testid="ds-picker"
    >
      <Divider orientation="left" orientationMargin={0} className="form-section">
        {t('picker.title')}
      </Divider>
      <Row gutter={24}>
        <Col xs={24} md={12}>
          <Form.Item name="data_source_id" label={t('picker.source')} initialValue="">
            <Select
              data-testid="ds-picker-source"
              loading={choices.isLoading}
              options={(choices.data ?? []).map((c) => ({
                value: c._id,
                label: c._id ? `${c.name} (${t(`types.${c.type}`)})` : t('builtin'),
              }))}
            />
          </Form.Item>
        </Col>
        {!!source && (
          <Col xs={24} md={12}>
            <Form.Item
              name="result_table"
              label={t('picker.table')}
              extra={t('picker.tableHint', { table: target.data?.table || spider.col })}
              rules={[{ pattern: TABLE, message: t('rules.schemaPattern') }]}
            >
              <Input
                className="mono-input"
                data-testid="ds-picker-table"
                placeholder={target.data?.table || spider.col}
              />
            </Form.Item>
          </Col>
        )}
      </Row>
      <div className="form-actions">
        <Typography.Text type="secondary" className="form-actions-hint">
          {t('picker.laterTasks')}
        </Typography.Text>
        <Button
          type="primary"
          htmlType="submit"
          icon={<SaveOutlined />}
          loading={save.isPending}
          data-testid="ds-picker-save"
        >
          {t('common:save')}
        </Button>
      </div>
    </Form>
  );
}
