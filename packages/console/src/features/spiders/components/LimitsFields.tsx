/**
 * A spider's own limits for each of its tasks, in the Overview form: memory (MiB), CPU (percent of one core) and
 * processes at once (empty or 0 takes the default the master sends with every task), and the maximum run time in
 * seconds (empty or 0: none). Beside them, how many of the spider's tasks may be claimed or running at once (empty or
 * 0: no limit; the others wait in the queue).
 */
import { Col, Divider, Form, InputNumber, Row } from 'antd';
import { useTranslation } from 'react-i18next';
import { MAX_RUNNING_MAX, TIMEOUT_MAX_SECONDS } from '@crawldeck/shared';

const FIELDS = [
  { name: 'memory_mb', max: 1_048_576, unit: 'MiB' },
  { name: 'cpu_percent', max: 25_600, unit: '%' },
  { name: 'max_processes', max: 4_194_304, unit: '' },
  { name: 'timeout_seconds', max: TIMEOUT_MAX_SECONDS, unit: 'timeoutUnit' },
] as const;

export default function LimitsFields() {
  const { t } = useTranslation('spiders');
  return (
    <>
      <Divider orientation="left" orientationMargin={0} className="form-section">
        {t('sections.limits')}
      </Divider>
      <Row gutter={24}>
        {FIELDS.map((f) => (
          <Col xs={24} md={12} xl={6} key={f.name}>
            <Form.Item
              name={['limits', f.name]}
              label={t(`limits.${f.name}`)}
              tooltip={t(f.name === 'timeout_seconds' ? 'hints.timeout' : 'hints.limits')}
            >
              <InputNumber
                min={0}
                max={f.max}
                precision={0}
                placeholder={t(f.name === 'timeout_seconds' ? 'limits.timeoutNone' : 'limits.default')}
                addonAfter={f.unit === 'timeoutUnit' ? t('limits.timeoutUnit') : f.unit || undefined}
                style={{ width: '100%' }}
                data-testid={`limits-${f.name}`}
              />
            </Form.Item>
          </Col>
        ))}
        <Col xs={24} md={12} xl={6}>
          <Form.Item name="max_running" label={t('limits.max_running')} tooltip={t('hints.maxRunning')}>
            <InputNumber
              min={0}
              max={MAX_RUNNING_MAX}
              precision={0}
              placeholder={t('limits.maxRunningNone')}
              style={{ width: '100%' }}
              data-testid="limits-max_running"
            />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}
