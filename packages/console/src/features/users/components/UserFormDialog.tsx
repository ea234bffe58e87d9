/** Add / edit user dialog with the account rules: username ≤ 100, password ≥ 5, two passwords match, e-mail format. */
import { useEffect } from 'react';
import { Form, Input, Modal, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { isValidEmail, isValidPassword, isValidUsername, type Role, type UserInfo } from '@crawldeck/shared';
import { ApiRequestError } from '../../../api/request.ts';
import { useAddUser, useUpdateUser } from '../api.ts';
import { toasts } from '../../../api/toasts.ts';

interface Values {
  username: string;
  password?: string;
  confirmPassword?: string;
  role: Role;
  email?: string;
}

export function UserFormDialog({ open, user, onClose }: { open: boolean; user: UserInfo | null; onClose: () => void }) {
  const { t } = useTranslation('users');
  const [form] = Form.useForm<Values>();
  const add = useAddUser();
  const update = useUpdateUser();
  const editing = !!user;

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(user ? { username: user.username, role: user.role, email: user.email } : { role: 'normal' });
  }, [open, user, form]);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      void toasts().error(t('validation.blocked'));
      return;
    }
    try {
      if (user) {
        await update.mutateAsync({
          id: user._id,
          body: {
            role: values.role,
            email: values.email?.trim() ?? '',
            ...(values.password ? { password: values.password } : {}),
          },
        });
        void toasts().success(t('saved'));
      } else {
        await add.mutateAsync({
          username: values.username.trim(),
          password: values.password!,
          role: values.role,
          email: values.email?.trim() || undefined,
        });
        void toasts().success(t('added'));
      }
      onClose();
    } catch (err) {
      if (
        err instanceof ApiRequestError &&
        err.status === 409 &&
        (err.code === 'user.exists' || /username/.test(err.body?.error ?? ''))
      ) {
        form.setFields([{ name: 'username', errors: [t('validation.usernameExists')] }]);
      }
    }
  };

  return (
    <Modal
      open={open}
      title={editing ? t('edit') : t('add')}
      onCancel={onClose}
      onOk={submit}
      confirmLoading={add.isPending || update.isPending}
      destroyOnHidden
      className="user-form-dialog"
    >
      <Form<Values> form={form} layout="vertical" requiredMark={!editing}>
        <Form.Item
          name="username"
          label={t('username')}
          rules={[
            {
              validator: (_, v: string | undefined) =>
                isValidUsername(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('validation.username'))),
            },
          ]}
        >
          <Input disabled={editing} autoComplete="off" maxLength={100} />
        </Form.Item>
        <Form.Item
          name="password"
          label={editing ? t('newPassword') : t('password')}
          extra={editing ? t('newPasswordHint') : undefined}
          rules={[
            {
              validator: (_, v: string | undefined) =>
                (editing && !v) || isValidPassword(v ?? '')
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('validation.passwordLength'))),
            },
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          name="confirmPassword"
          label={t('confirmPassword')}
          dependencies={['password']}
          rules={[
            ({ getFieldValue }) => ({
              validator: (_, v: string | undefined) =>
                (getFieldValue('password') ?? '') === (v ?? '')
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('validation.passwordMismatch'))),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item name="role" label={t('role')} rules={[{ required: true }]}>
          <Select options={(['normal', 'admin'] as const).map((r) => ({ value: r, label: t(`roles.${r}`) }))} />
        </Form.Item>
        <Form.Item
          name="email"
          label={t('email')}
          rules={[
            {
              validator: (_, v: string | undefined) =>
                !v?.trim() || isValidEmail(v.trim())
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('validation.email'))),
            },
          ]}
        >
          <Input inputMode="email" autoComplete="off" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
