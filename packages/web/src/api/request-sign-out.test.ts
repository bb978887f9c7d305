import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { ACCOUNT_POLICY_MSG, MSG } from '@ecrf/core';
import { useSession } from '../stores/session.store';
import { clearSignOutNotice, signOutNotice } from '../stores/sign-out-notice';
import { http, instance, setNavigator, setNotifier } from './request';

vi.mock('antd', () => ({ message: { error: vi.fn() } }));

type Handler = (config: InternalAxiosRequestConfig) => { status: number; data: unknown };
let handler: Handler;
const notify = vi.fn<(text: string) => void>();
const navigate = vi.fn<(path: string) => void>();

instance.defaults.adapter = async (config) => {
  const reply = handler(config);
  const response: AxiosResponse = { data: reply.data, status: reply.status, statusText: '', headers: {}, config };
  if (reply.status < 300) return response;
  throw new AxiosError('failed', AxiosError.ERR_BAD_REQUEST, config, null, response);
};

const refusal = (msg: string) => ({ status: 401, data: { code: 401, msg, data: null } });

beforeEach(() => {
  notify.mockReset();
  navigate.mockReset();
  setNotifier({ error: notify });
  setNavigator(navigate);
  clearSignOutNotice();
  useSession.getState().clear();
  useSession.getState().signIn({
    token: 'access-1',
    refreshToken: 'refresh-1',
    expiresIn: 900,
    setPasswordMust: false,
    user: {
      userId: 7,
      userName: '13800000001',
      name: '张护士',
      sex: 1,
      email: null,
      mobile: null,
      deptId: 1,
      remark: null,
      status: 0,
    },
  });
});

describe('sessions the server ended for a reason', () => {
  it('a refused refresh that says why (idle sign-out) is shown instead of 登录超时 and kept for the sign-in page', async () => {
    handler = (config) =>
      config.url === '/api/ignore/sys/refresh' ? refusal(ACCOUNT_POLICY_MSG.idleSignedOut) : refusal(MSG.loginTimeout);
    await expect(http.get('/api/sys/login/getInfo')).rejects.toMatchObject({
      status: 401,
      message: ACCOUNT_POLICY_MSG.idleSignedOut,
    });
    expect(notify).toHaveBeenCalledWith(ACCOUNT_POLICY_MSG.idleSignedOut);
    expect(signOutNotice()).toBe(ACCOUNT_POLICY_MSG.idleSignedOut);
    expect(useSession.getState().token).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/');
  });

  it('a plain refused refresh is still 登录超时, with nothing kept', async () => {
    handler = () => refusal(MSG.loginTimeout);
    await expect(http.get('/api/sys/login/getInfo')).rejects.toMatchObject({ message: MSG.loginTimeout });
    expect(notify).toHaveBeenCalledWith(MSG.loginTimeout);
    expect(signOutNotice()).toBeNull();
  });

  it('a refused sign-in (403) shows the server’s reason, 账号已过期, not the permission message', async () => {
    useSession.getState().clear();
    handler = () => ({ status: 403, data: { code: 403, msg: ACCOUNT_POLICY_MSG.accountExpired, data: null } });
    await expect(http.post('/api/ignore/sys/login', {}, { silent: true })).rejects.toMatchObject({
      message: ACCOUNT_POLICY_MSG.accountExpired,
    });
    handler = () => ({ status: 403, data: { code: 403, msg: 'forbidden', data: null } });
    await expect(http.get('/api/system/users')).rejects.toMatchObject({ message: MSG.forbidden });
  });
});
