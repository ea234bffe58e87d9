/** One view for sign in (/login) and sign up (/signup). */
import { useState } from 'react';
import { Button, Card, Form, Input, Typography } from 'antd';
import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Link, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isValidPassword, isValidUsername } from '@crawldeck/shared';
import { ApiRequestError } from '../../api/request.ts';
import { login, signUp } from '../../app/startup.ts';
import { useAppStore } from '../../app/stores/app.ts';
import './login.css';
import LoginHeader from './LoginHeader.tsx';
import { toasts } from '../../api/toasts.ts';

interface FormValues {
  username: string;
  password: string;
  confirmPassword?: string;
}

export default function LoginPage() {
  const { t } = useTranslation(['login', 'common']);
  const location = useLocation();
  const navigate = useNavigate();
  const isSignUp = location.pathname === '/signup';
  const [form] = Form.useForm<FormValues>();
  const [loading, setLoading] = useState(false);
  // Sign-up is closed until an administrator opens it (GET /setting allow_signup); while closed there is no link to
  // it, and the sign-up form itself says so instead of offering a button that can only fail.
  const allowSignUp = useAppStore((s) => s.setting?.allow_signup);
  const signUpOpen = allowSignUp === 'Y';
  const signUpClosed = isSignUp && !signUpOpen;

  const onFinish = async (values: FormValues) => {
    const username = values.username.trim();
    setLoading(true);
    try {
      if (isSignUp) {
        try {
          await signUp(username, values.password);
        } catch (err) {
          void toasts().error(
            err instanceof ApiRequestError && err.errorText ? err.errorText : t('login:loginError'),
            5,
          );
          return;
        }
        void toasts().success(t('login:signUpSuccess'));
      }
      try {
        await login(username, values.password);
      } catch {
        void toasts().error(t('login:loginError'), 5);
        return;
      }
      navigate('/home');
    } finally {
      setLoading(false);
    }
  };

  return (
    <div className="login-container">
      <Card className="login-card" variant="borderless">
        <LoginHeader />
        <Form<FormValues>
          form={form}
          layout="vertical"
          size="large"
          onFinish={onFinish}
          requiredMark={false}
          key={isSignUp ? 'signup' : 'login'}
        >
          <Form.Item
            name="username"
            label={t('login:username')}
            rules={[
              {
                validator: (_, v: string | undefined) =>
                  isValidUsername(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('login:invalidUsername'))),
              },
            ]}
          >
            <Input
              prefix={<UserOutlined />}
              autoComplete="username"
              name="username"
              placeholder={t('login:username')}
            />
          </Form.Item>
          <Form.Item
            name="password"
            label={t('login:password')}
            rules={[
              {
                validator: (_, v: string | undefined) =>
                  isValidPassword(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('login:invalidPassword'))),
              },
            ]}
          >
            <Input.Password
              prefix={<LockOutlined />}
              autoComplete={isSignUp ? 'new-password' : 'current-password'}
              name="password"
              placeholder={t('login:password')}
            />
          </Form.Item>
          {isSignUp && (
            <Form.Item
              name="confirmPassword"
              label={t('login:confirmPassword')}
              dependencies={['password']}
              rules={[
                ({ getFieldValue }) => ({
                  validator: (_, v: string | undefined) =>
                    v === getFieldValue('password')
                      ? Promise.resolve()
                      : Promise.reject(new Error(t('login:passwordMismatch'))),
                }),
              ]}
            >
              <Input.Password
                prefix={<LockOutlined />}
                autoComplete="new-password"
                name="confirmPassword"
                placeholder={t('login:confirmPassword')}
              />
            </Form.Item>
          )}
          {signUpClosed && (
            <Typography.Paragraph type="warning" data-testid="signup-closed">
              {t('login:signUpClosed')}
            </Typography.Paragraph>
          )}
          <Form.Item style={{ marginBottom: 12 }}>
            <Button
              type="primary"
              htmlType="submit"
              block
              loading={loading}
              disabled={signUpClosed}
              className="login-submit"
            >
              {isSignUp ? t('login:signUp') : t('login:signIn')}
            </Button>
          </Form.Item>
        </Form>
        <div
          className="login-switch"
          data-signup={allowSignUp === undefined ? 'unknown' : signUpOpen ? 'open' : 'closed'}
        >
          {isSignUp ? (
            <>
              {t('login:hasAccount')} <Link to="/login">{t('login:goSignIn')}</Link>
            </>
          ) : (
            signUpOpen && (
              <>
                {t('login:noAccount')} <Link to="/signup">{t('login:goSignUp')}</Link>
              </>
            )
          )}
        </div>
      </Card>
      <div className="login-footer">{t('login:footer')}</div>
    </div>
  );
}
