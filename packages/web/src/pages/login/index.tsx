import { useState } from 'react';
import { LockOutlined, MobileOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/query-keys';
import { Alert, App, Button, Form, Input } from 'antd';
import { MSG } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { authApi } from '../../api/auth.api';
import { ApiError } from '../../api/request';
import { T } from '../../locales/zh-CN';
import { pathOfRouteName } from '../../router';
import { DEFAULT_HOME_PATH } from '../../router-guard';
import { useAppStore } from '../../stores/app.store';
import { useSession } from '../../stores/session.store';
import { clearSignOutNotice, signOutNotice } from '../../stores/sign-out-notice';

interface LoginValues {
  username: string;
  password: string;
  code?: string;
}

export default function LoginPage() {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signIn = useSession((s) => s.signIn);
  const setInfo = useSession((s) => s.setInfo);
  const resetViews = useAppStore((s) => s.resetViews);
  const [form] = Form.useForm<LoginValues>();
  const [submitting, setSubmitting] = useState(false);
  // What a screen reader announces when a sign-in is refused by the form's rules (the server's refusals come as
  // a message, which antd announces itself).
  const [announcement, setAnnouncement] = useState('');
  // Why the last session ended (长时间未操作…, 账号已过期…), until the next sign-in.
  const [notice] = useState(signOutNotice);

  // A captcha answer is single use: every failed sign-in and every click asks for a new one.
  const { data: captcha, refetch } = useQuery({
    queryKey: queryKeys.account.captcha(),
    queryFn: () => authApi.captcha().then((res) => res.data),
    staleTime: Infinity,
    gcTime: 0,
  });
  const loadCaptcha = () => void refetch();

  const captchaEnabled = captcha?.captchaEnabled !== false;

  const submit = async (values: LoginValues) => {
    setAnnouncement('');
    setSubmitting(true);
    try {
      const res = await authApi.login({
        username: values.username.trim(),
        password: values.password,
        code: values.code ?? '',
        uuid: captcha?.uuid ?? '',
      });
      const result = res.data;
      // Load the user before storing the session: the guard moves a signed-in visitor off
      // /login at once, and the home page should find its permissions already there.
      queryClient.clear();
      const [info] = await Promise.all([
        queryClient.fetchQuery({
          queryKey: queryKeys.account.info(),
          queryFn: () => authApi.getInfo(result.token).then((r) => r.data),
        }),
        queryClient.prefetchQuery({
          queryKey: queryKeys.account.routers(),
          queryFn: () => authApi.getRouters(result.token).then((r) => r.data),
        }),
      ]);
      resetViews();
      clearSignOutNotice();
      signIn(result);
      setInfo(info);
      // A forced password change is shown by the shell over the home page (setPasswordMust).
      await navigate(pathOfRouteName(info.user.home ?? result.user.home) ?? DEFAULT_HOME_PATH, { replace: true });
    } catch (error) {
      void message.error(error instanceof ApiError ? error.message : MSG.systemError);
      form.setFieldValue('code', '');
      loadCaptcha();
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <div className="login-page">
      <div className="login-card">
        <h1 className="login-title">{T.productTitle}</h1>
        <p className="login-subtitle">{T.login.welcome}</p>
        {notice && (
          <Alert className="login-notice" type="warning" showIcon title={notice} style={{ marginBottom: 16 }} />
        )}
        <Form
          form={form}
          name="login"
          size="large"
          onFinish={(values) => void submit(values)}
          onFinishFailed={({ errorFields }) =>
            setAnnouncement(errorFields.flatMap((field) => field.errors.slice(0, 1)).join('；'))
          }
          autoComplete="off"
        >
          <Form.Item name="username" rules={[{ required: true, whitespace: true, message: MSG.userNameRequired }]}>
            <Input
              prefix={<MobileOutlined />}
              placeholder={T.login.usernamePlaceholder}
              aria-label={T.login.usernameLabel}
              maxLength={11}
              autoComplete="username"
            />
          </Form.Item>
          <Form.Item name="password" rules={[{ required: true, message: MSG.passwordRequired }]}>
            <Input.Password
              prefix={<LockOutlined />}
              placeholder={T.login.passwordPlaceholder}
              aria-label={T.login.passwordLabel}
              autoComplete="current-password"
            />
          </Form.Item>
          {captchaEnabled && (
            <Form.Item>
              <div className="login-captcha">
                <Form.Item
                  name="code"
                  noStyle
                  rules={[{ required: true, whitespace: true, message: T.login.codeRequired }]}
                >
                  <Input
                    prefix={<SafetyCertificateOutlined />}
                    placeholder={T.login.codePlaceholder}
                    aria-label={T.login.codeLabel}
                    maxLength={8}
                  />
                </Form.Item>
                {/* A button, so that a new picture can be asked for from the keyboard too. */}
                <button
                  type="button"
                  className="login-captcha-refresh"
                  title={T.login.captchaTitle}
                  onClick={loadCaptcha}
                >
                  {captcha?.img ? <img src={captcha.img} alt={T.login.captchaAlt} /> : <img alt={T.login.captchaAlt} />}
                </button>
              </div>
            </Form.Item>
          )}
          <div className="sr-only" role="alert">
            {announcement}
          </div>
          <Form.Item>
            <Button type="primary" htmlType="submit" block loading={submitting}>
              {T.login.submit}
            </Button>
          </Form.Item>
        </Form>
      </div>
    </div>
  );
}
