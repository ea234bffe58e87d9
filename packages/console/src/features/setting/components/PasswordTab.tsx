/**
 * Settings → Password: change own password (≥ 5, two must match, current one required) via POST /me; other
 * sessions end, and the API tokens too when the box is ticked.
 */
import { Button, Checkbox, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { isValidPassword } from '@crawldeck/shared';
import { useChangePassword } from '../api.ts';
import { showSubmitBlocked } from '../../../app/submitBlocked.ts';
import { toasts } from '../../../api/toasts.ts';

export function PasswordTab() {
  const { t } = useTranslation('setting');
  const [form] = Form.useForm<{ current: string; password: string; confirm: string; revokeTokens?: boolean }>();
  const change = useChangePassword();
  return (
    <Form
      form={form}
      layout="vertical"
      style={{ maxWidth: 420 }}
      data-panel="password"
      onFinishFailed={showSubmitBlocked}
      onFinish={async (v) => {
        await change.mutateAsync({
          password: v.password,
          current_password: v.current,
          revoke_tokens: v.revokeTokens === true,
        });
        form.resetFields();
        void toasts().success(t('password.done'));
      }}
    >
      <Form.Item
        name="current"
        label={t('password.current')}
        rules={[{ required: true, message: t('password.currentRequired') }]}
      >
        <Input.Password autoComplete="current-password" data-testid="current-password" />
      </Form.Item>
      <Form.Item
        name="password"
        label={t('password.password')}
        rules={[
          {
            validator: (_, v: string | undefined) =>
              isValidPassword(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('password.length'))),
          },
        ]}
      >
        <Input.Password autoComplete="new-password" data-testid="new-password" />
      </Form.Item>
      <Form.Item
        name="confirm"
        label={t('password.confirm')}
        dependencies={['password']}
        rules={[
          ({ getFieldValue }) => ({
            validator: (_, v: string | undefined) =>
              (v ?? '') === (getFieldValue('password') ?? '')
                ? Promise.resolve()
                : Promise.reject(new Error(t('password.mismatch'))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" data-testid="confirm-password" />
      </Form.Item>
      <Form.Item name="revokeTokens" valuePropName="checked">
        <Checkbox data-testid="revoke-tokens">{t('password.revokeTokens')}</Checkbox>
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={change.isPending} data-testid="change-password">
        {t('password.submit')}
      </Button>
    </Form>
  );
}
