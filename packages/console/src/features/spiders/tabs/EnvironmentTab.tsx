/** Spider detail, Environment tab: the spider's own environment variables (`envs`, a name/value list). */
import { useEffect, useMemo } from 'react';
import { App, Button, Empty, Form, Input, Space, Typography } from 'antd';
import { DeleteOutlined, PlusOutlined, SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { isValidEnvName } from '@crawldeck/shared';
import { useUpdateSpider } from '../api.ts';
import type { SpiderEnv } from '../types.ts';
import type { SpiderTabProps } from './types.ts';

export default function EnvironmentTab({ spider }: SpiderTabProps) {
  const { t } = useTranslation(['spiders', 'common']);
  const { message } = App.useApp();
  const [form] = Form.useForm<{ envs: SpiderEnv[] }>();
  const update = useUpdateSpider(spider._id);
  const initial = useMemo(
    () => ({ envs: (spider.envs ?? []).map((e) => ({ name: e.name, value: e.value })) }),
    [spider.envs],
  );

  useEffect(() => {
    form.setFieldsValue(initial);
  }, [form, initial]);

  const onSave = async () => {
    let v: { envs: SpiderEnv[] };
    try {
      v = await form.validateFields();
    } catch {
      void message.error(t('spiders:submitErrors'));
      return;
    }
    const envs = (v.envs ?? []).map((e) => ({ name: e.name.trim(), value: e.value ?? '' }));
    await update.mutateAsync({ envs });
    void message.success(t('spiders:env.saved'));
  };

  return (
    <div className="spider-env">
      <Typography.Paragraph type="secondary" className="spider-env-hint">
        {t('spiders:env.hint')}
      </Typography.Paragraph>
      <Form
        form={form}
        initialValues={initial}
        onFinish={() => void onSave().catch(() => undefined)}
        onFinishFailed={() => void message.error(t('spiders:submitErrors'))}
      >
        <Form.List name="envs">
          {(fields, { add, remove }) => (
            <>
              {fields.length === 0 ? (
                <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('spiders:env.empty')} />
              ) : (
                <div className="spider-env-table">
                  <div className="spider-env-row spider-env-head">
                    <span>{t('spiders:env.name')}</span>
                    <span>{t('spiders:env.value')}</span>
                    <span />
                  </div>
                  {fields.map((field) => (
                    <div className="spider-env-row" key={field.key} data-testid="env-row">
                      <Form.Item
                        name={[field.name, 'name']}
                        rules={[
                          { required: true, whitespace: true, message: t('spiders:env.nameRequired') },
                          {
                            validator: async (_, value: string) => {
                              if (value && !isValidEnvName(value.trim())) throw new Error(t('spiders:env.namePattern'));
                            },
                          },
                          ({ getFieldValue }) => ({
                            validator: async (_, value: string) => {
                              const names = ((getFieldValue('envs') as SpiderEnv[]) ?? []).map((e) => e?.name?.trim());
                              if (value && names.filter((n) => n === value.trim()).length > 1)
                                throw new Error(t('spiders:env.duplicate'));
                            },
                          }),
                        ]}
                      >
                        <Input className="mono-input" placeholder="API_KEY" data-testid="env-name" />
                      </Form.Item>
                      <Form.Item name={[field.name, 'value']}>
                        <Input
                          className="mono-input"
                          placeholder={t('spiders:env.valuePlaceholder')}
                          data-testid="env-value"
                        />
                      </Form.Item>
                      <Button
                        type="text"
                        danger
                        icon={<DeleteOutlined />}
                        onClick={() => remove(field.name)}
                        aria-label={t('spiders:env.remove')}
                      />
                    </div>
                  ))}
                </div>
              )}
              <Space className="spider-env-actions">
                <Button icon={<PlusOutlined />} onClick={() => add({ name: '', value: '' })} data-testid="env-add">
                  {t('spiders:env.add')}
                </Button>
                <Button
                  type="primary"
                  htmlType="submit"
                  icon={<SaveOutlined />}
                  loading={update.isPending}
                  data-testid="env-save"
                >
                  {t('common:save')}
                </Button>
              </Space>
            </>
          )}
        </Form.List>
      </Form>
    </div>
  );
}
