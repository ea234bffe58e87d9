/** Add or edit a results data source (PostgreSQL, MySQL/MariaDB), with Test connection. The password is write-only. */
import { useEffect, useState } from 'react';
import { Alert, Button, Col, Form, Input, InputNumber, Modal, Row, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import type { CreateDataSourceBody, DataSourceInfo, DataSourceType } from '@crawldeck/shared';
import { DataSourceAccessFields, type DataSourceValues as Values } from './DataSourceAccessFields.tsx';
import { useSaveDataSource, useTestDataSource } from '../datasources.api.ts';
import { validFields } from '../../../app/submitBlocked.ts';

const DEFAULT_PORTS: Record<DataSourceType, number> = { postgres: 5432, mysql: 3306 };

/** The server's reason in the console's language (the API client attaches it), else the error's own message. */
function errorOf(err: unknown): string {
  return err instanceof Error ? ((err as { errorText?: string }).errorText ?? err.message) : String(err);
}

function toValues(d?: DataSourceInfo): Values {
  if (!d || d.type === 'builtin')
    return {
      name: '',
      type: 'postgres',
      host: '127.0.0.1',
      port: 5432,
      database: '',
      username: '',
      schema: '',
      tls_enabled: false,
      tls_verify: true,
      tls_ca: '',
    };
  return {
    name: d.name,
    type: d.type,
    host: d.host,
    port: d.port,
    database: d.database,
    username: d.username,
    password: '',
    schema: d.schema,
    tls_enabled: d.tls.enabled,
    tls_verify: d.tls.verify,
    tls_ca: d.tls.ca,
  };
}

function toBody(v: Values): CreateDataSourceBody {
  return {
    name: v.name.trim(),
    type: v.type,
    host: v.host.trim(),
    port: v.port,
    database: v.database.trim(),
    username: v.username?.trim() ?? '',
    password: v.password ?? '',
    schema: v.type === 'postgres' ? (v.schema?.trim() ?? '') : '',
    tls: { enabled: !!v.tls_enabled, verify: v.tls_verify !== false, ca: v.tls_ca ?? '' },
  };
}

type Outcome = { ok: true; text: string } | { ok: false; text: string };

export function DataSourceForm({
  open,
  editing,
  onClose,
  onSaved,
}: {
  open: boolean;
  editing?: DataSourceInfo;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation(['datasources', 'common']);
  const [form] = Form.useForm<Values>();
  const save = useSaveDataSource();
  const test = useTestDataSource();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const type = Form.useWatch('type', form);

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(toValues(editing));
    setOutcome(null);
  }, [open, editing, form]);

  const onTest = async () => {
    const v = await form.validateFields();
    setOutcome(null);
    try {
      const r = await test.mutateAsync({ ...toBody(v), ...(editing ? { id: editing._id } : {}) });
      setOutcome(
        r.ok ? { ok: true, text: t('testOk', { ms: r.latency_ms, version: r.version }) } : { ok: false, text: r.error },
      );
    } catch (err) {
      // A refused test (the stored password is not sent to other settings) says why where a failed one does.
      setOutcome({ ok: false, text: errorOf(err) });
    }
  };

  const onSave = async () => {
    const v = await validFields(form);
    try {
      await save.mutateAsync({ id: editing?._id, body: toBody(v) });
      onSaved();
    } catch (err) {
      setOutcome({ ok: false, text: errorOf(err) });
    }
  };

  return (
    <Modal
      open={open}
      title={editing ? t('edit') : t('add')}
      onCancel={onClose}
      onOk={() => void onSave().catch(() => undefined)}
      okText={t('common:save')}
      confirmLoading={save.isPending}
      width={640}
      destroyOnClose
      footer={(_, { OkBtn, CancelBtn }) => (
        <>
          <Button data-testid="ds-test" loading={test.isPending} onClick={() => void onTest().catch(() => undefined)}>
            {t('test')}
          </Button>
          <CancelBtn />
          <OkBtn />
        </>
      )}
    >
      <Form<Values> form={form} layout="vertical" data-testid="ds-form">
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item
              name="name"
              label={t('fields.name')}
              rules={[{ required: true, whitespace: true, message: t('rules.nameRequired') }, { max: 100 }]}
            >
              <Input data-testid="ds-name" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="type" label={t('fields.type')}>
              <Select
                data-testid="ds-type"
                options={(['postgres', 'mysql'] as const).map((v) => ({ value: v, label: t(`types.${v}`) }))}
                onChange={(v: DataSourceType) => form.setFieldValue('port', DEFAULT_PORTS[v])}
              />
            </Form.Item>
          </Col>
          <Col span={16}>
            <Form.Item
              name="host"
              label={t('fields.host')}
              rules={[
                { required: true, whitespace: true, message: t('rules.hostRequired') },
                { pattern: /^[A-Za-z0-9.:_\-[\]]+$/, message: t('rules.hostPattern') },
                { max: 255 },
              ]}
            >
              <Input className="mono-input" data-testid="ds-host" />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item name="port" label={t('fields.port')} rules={[{ required: true }]}>
              <InputNumber min={1} max={65535} precision={0} style={{ width: '100%' }} data-testid="ds-port" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item
              name="database"
              label={t('fields.database')}
              rules={[{ required: true, whitespace: true, message: t('rules.databaseRequired') }, { max: 63 }]}
            >
              <Input className="mono-input" data-testid="ds-database" />
            </Form.Item>
          </Col>
          <Col span={12}>
            {type === 'postgres' && (
              <Form.Item
                name="schema"
                label={t('fields.schema')}
                rules={[{ pattern: /^([A-Za-z_][A-Za-z0-9_]{0,62})?$/, message: t('rules.schemaPattern') }]}
              >
                <Input className="mono-input" placeholder={t('placeholders.schema')} />
              </Form.Item>
            )}
          </Col>
          <DataSourceAccessFields form={form} passwordSet={!!editing?.password_set} />
        </Row>
      </Form>
      {outcome && (
        <Alert
          data-testid={outcome.ok ? 'ds-test-ok' : 'ds-test-failed'}
          type={outcome.ok ? 'success' : 'error'}
          showIcon
          message={outcome.ok ? outcome.text : t('changeFailed')}
          description={outcome.ok ? undefined : outcome.text}
        />
      )}
    </Modal>
  );
}
