/** The data source form's sign-in part: user name, write-only password, and TLS with its own CA. */
import { Col, Form, Input, Switch, type FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataSourceType } from '@crawldeck/shared';

/** The data source form's values. */
export interface DataSourceValues {
  name: string;
  type: DataSourceType;
  host: string;
  port: number;
  database: string;
  username?: string;
  password?: string;
  schema?: string;
  tls_enabled?: boolean;
  tls_verify?: boolean;
  tls_ca?: string;
}

export function DataSourceAccessFields({
  form,
  passwordSet,
}: {
  form: FormInstance<DataSourceValues>;
  /** The stored source has a password: an empty field keeps it. */
  passwordSet: boolean;
}) {
  const { t } = useTranslation(['datasources', 'common']);
  const tls = Form.useWatch('tls_enabled', form);
  return (
    <>
      <Col span={12}>
        <Form.Item name="username" label={t('fields.username')} rules={[{ max: 100 }]}>
          <Input data-testid="ds-username" autoComplete="off" />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item name="password" label={t('fields.password')} rules={[{ max: 1000 }]}>
          <Input.Password
            data-testid="ds-password"
            autoComplete="new-password"
            placeholder={passwordSet ? t('placeholders.passwordKept') : ''}
          />
        </Form.Item>
      </Col>
      <Col span={8}>
        <Form.Item name="tls_enabled" label={t('fields.tls')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Col>
      {tls && (
        <Col span={16}>
          <Form.Item name="tls_verify" label={t('fields.tlsVerify')} valuePropName="checked">
            <Switch />
          </Form.Item>
        </Col>
      )}
      {tls && (
        <Col span={24}>
          <Form.Item name="tls_ca" label={t('fields.tlsCa')} rules={[{ max: 20000 }]}>
            <Input.TextArea rows={3} className="mono-input" placeholder={t('placeholders.tlsCa')} />
          </Form.Item>
        </Col>
      )}
    </>
  );
}
