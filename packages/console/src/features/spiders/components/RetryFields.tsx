/**
 * A spider's automatic retries, in the Overview form: how many times a failed task is run again (0 to 5), how long
 * the first retry waits (each further one waits twice as long, at most an hour) and which endings are retried.
 */
import { Checkbox, Col, Divider, Form, InputNumber, Row } from 'antd';
import { useTranslation } from 'react-i18next';
import { RETRY_DELAY_MAX_SECONDS, RETRY_MAX, RETRY_ON } from '@crawldeck/shared';

export default function RetryFields() {
  const { t } = useTranslation('spiders');
  return (
    <>
      <Divider orientation="left" orientationMargin={0} className="form-section">
        {t('sections.retries')}
      </Divider>
      <Row gutter={24}>
        <Col xs={24} md={12} xl={6}>
          <Form.Item name="retries" label={t('retries.count')} tooltip={t('retries.countHint', { max: RETRY_MAX })}>
            <InputNumber min={0} max={RETRY_MAX} precision={0} style={{ width: '100%' }} data-testid="retries-count" />
          </Form.Item>
        </Col>
        <Col xs={24} md={12} xl={6}>
          <Form.Item
            name="retry_delay_seconds"
            label={t('retries.delay')}
            tooltip={t('retries.delayHint')}
            rules={[{ required: true, message: t('retries.delayRequired') }]}
          >
            <InputNumber
              min={1}
              max={RETRY_DELAY_MAX_SECONDS}
              precision={0}
              addonAfter={t('limits.timeoutUnit')}
              style={{ width: '100%' }}
              data-testid="retries-delay"
            />
          </Form.Item>
        </Col>
        <Col xs={24} xl={12}>
          <Form.Item name="retry_on" label={t('retries.on')} tooltip={t('retries.onHint')}>
            <Checkbox.Group
              options={RETRY_ON.map((k) => ({ value: k, label: t(`retries.kinds.${k}`) }))}
              data-testid="retries-on"
            />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}
