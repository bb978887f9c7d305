import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { MSG } from '@ecrf/core';
import { useSession } from '../stores/session.store';
import { ApiError, http, instance, MESSAGE_SECONDS, setNavigator, setNotifier, staticNotifier } from './request';

const antdMessage = vi.hoisted(() => ({ error: vi.fn() }));
vi.mock('antd', () => ({ message: antdMessage }));

interface Reply {
  status: number;
  data?: unknown;
  /** Rejects without a response, as a dropped connection does. */
  network?: boolean;
}

type Handler = (config: InternalAxiosRequestConfig) => Reply | Promise<Reply>;

let handler: Handler;
let seen: InternalAxiosRequestConfig[];
let lastResponse: AxiosResponse | null;
const notify = vi.fn<(text: string) => void>();
const navigate = vi.fn<(path: string) => void>();

// The adapter stands in for the network and settles like axios's own adapters do.
instance.defaults.adapter = async (config) => {
  seen.push(config);
  const reply = await handler(config);
  if (reply.network) throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config);
  const response: AxiosResponse = { data: reply.data, status: reply.status, statusText: '', headers: {}, config };
  lastResponse = response;
  if (reply.status >= 200 && reply.status < 300) return response;
  throw new AxiosError(
    `Request failed with status code ${reply.status}`,
    AxiosError.ERR_BAD_REQUEST,
    config,
    null,
    response,
  );
};

function signIn(token = 'access-1', refreshToken = 'refresh-1') {
  useSession.getState().signIn({
    token,
    refreshToken,
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
      remark: '随访护士',
      status: 0,
    },
  });
}

function authOf(config: InternalAxiosRequestConfig): unknown {
  return config.headers.get('Authorization');
}

beforeEach(() => {
  seen = [];
  lastResponse = null;
  notify.mockReset();
  navigate.mockReset();
  antdMessage.error.mockReset();
  setNotifier({ error: notify });
  setNavigator(navigate);
  useSession.getState().clear();
  handler = () => ({ status: 200, data: { code: 200, msg: '操作成功', data: null } });
});

afterEach(() => {
  useSession.getState().clear();
});

describe('request wrapper', () => {
  it('HTTP-01/HTTP-04/HTTP-05: uses the configured base URL, sends credentials and waits 6000000 ms', () => {
    expect(instance.defaults.baseURL).toBe('');
    expect(instance.defaults.withCredentials).toBe(true);
    expect(instance.defaults.timeout).toBe(6000000);
  });

  it('HTTP-02: sends Bearer <token>, and an empty header on URLs containing "ignore"', async () => {
    signIn('tok-abc');
    await http.get('/api/system/users');
    await http.get('/api/ignore/common/captcha');
    expect(authOf(seen[0])).toBe('Bearer tok-abc');
    expect(authOf(seen[1])).toBe('');
  });

  it("HTTP-03: appends a random _n query parameter to every request, keeping the caller's params", async () => {
    await http.get('/api/system/users', { params: { pageNum: 2 } });
    await http.post('/api/ignore/sys/login', {});
    expect(seen[0].params).toMatchObject({ pageNum: 2 });
    expect(typeof seen[0].params._n).toBe('number');
    expect(typeof seen[1].params._n).toBe('number');
    expect(seen[0].params._n).not.toBe(seen[1].params._n);
  });

  it('answers the envelope of a code-200 call', async () => {
    handler = () => ({ status: 200, data: { code: 200, msg: 'ok', data: { list: [], total: 0 } } });
    await expect(http.get('/api/system/users')).resolves.toEqual({
      code: 200,
      msg: 'ok',
      data: { list: [], total: 0 },
    });
    expect(notify).not.toHaveBeenCalled();
  });

  it('HTTP-09: a body code 401 shows 登录超时, clears storage and goes to the root', async () => {
    signIn();
    localStorage.setItem('studyName', '骨科研究');
    handler = () => ({ status: 200, data: { code: 401, msg: 'expired', data: null } });
    await expect(http.get('/api/system/users')).rejects.toBeInstanceOf(ApiError);
    expect(notify).toHaveBeenCalledWith(MSG.loginTimeout);
    expect(localStorage.length).toBe(0);
    expect(useSession.getState().token).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/');
  });

  it('HTTP-10: another body code shows its msg, or 操作失败！, unless the request is silent', async () => {
    handler = () => ({ status: 200, data: { code: 500, msg: '名称重复', data: null } });
    await expect(http.post('/api/system/dept', {})).rejects.toMatchObject({ code: 500, message: '名称重复' });
    expect(notify).toHaveBeenLastCalledWith('名称重复');

    handler = () => ({ status: 200, data: { code: 600, msg: '', data: null } });
    await expect(http.post('/api/system/dept', {})).rejects.toMatchObject({ message: MSG.failed });
    expect(notify).toHaveBeenLastCalledWith('操作失败！');

    notify.mockReset();
    await expect(http.post('/api/system/dept', {}, { silent: true })).rejects.toBeInstanceOf(ApiError);
    expect(notify).not.toHaveBeenCalled();
  });

  it('HTTP-11: passes blob (file download) responses through unchanged', async () => {
    const blob = new Blob(['a,b\n1,2'], { type: 'text/csv' });
    handler = () => ({ status: 200, data: blob });
    const response = await http.download('/api/business/randomization/export', { method: 'POST' });
    expect(response).toBe(lastResponse);
    expect(response.data).toBe(blob);
    expect(notify).not.toHaveBeenCalled();
  });

  it('HTTP-12: an HTTP 401 refreshes the token once, silently, and replays the call', async () => {
    signIn('old-token', 'refresh-1');
    handler = (config) => {
      if (config.url === '/api/ignore/sys/refresh') {
        return {
          status: 200,
          data: { code: 200, msg: '', data: { token: 'new-token', refreshToken: 'refresh-2', expiresIn: 900 } },
        };
      }
      return authOf(config) === 'Bearer new-token'
        ? { status: 200, data: { code: 200, msg: '', data: 'saved' } }
        : { status: 401, data: { code: 401, msg: MSG.loginTimeout, data: null } };
    };
    await expect(http.put('/api/v1/business/crf', { a: 1 })).resolves.toMatchObject({ data: 'saved' });
    const refreshCall = seen.find((c) => c.url === '/api/ignore/sys/refresh')!;
    expect(JSON.parse(refreshCall.data as string)).toEqual({ refreshToken: 'refresh-1' });
    expect(notify).not.toHaveBeenCalled();
    expect(useSession.getState().token).toBe('new-token');
    expect(localStorage.getItem('refreshToken')).toBe('refresh-2');
  });

  it('HTTP-12: a pair another tab already rotated is taken from storage, never the spent refresh token sent again', async () => {
    signIn('old-token', 'refresh-1');
    // The other tab refreshed and stored its new pair; this tab's memory still holds the old one.
    localStorage.setItem('token', 'tab-b-token');
    localStorage.setItem('refreshToken', 'refresh-2');
    handler = (config) =>
      authOf(config) === 'Bearer tab-b-token'
        ? { status: 200, data: { code: 200, msg: '', data: 'saved' } }
        : { status: 401, data: { code: 401, msg: MSG.loginTimeout, data: null } };
    await expect(http.put('/api/v1/business/crf', { a: 1 })).resolves.toMatchObject({ data: 'saved' });
    expect(seen.filter((c) => c.url === '/api/ignore/sys/refresh')).toHaveLength(0);
    expect(useSession.getState().refreshToken).toBe('refresh-2');
  });

  it('HTTP-12: parallel 401s share one refresh', async () => {
    signIn('old-token', 'refresh-1');
    handler = (config) => {
      if (config.url === '/api/ignore/sys/refresh') {
        return {
          status: 200,
          data: { code: 200, msg: '', data: { token: 'new-token', refreshToken: 'refresh-2', expiresIn: 900 } },
        };
      }
      return authOf(config) === 'Bearer new-token'
        ? { status: 200, data: { code: 200, msg: '', data: config.url } }
        : { status: 401, data: { code: 401, msg: MSG.loginTimeout, data: null } };
    };
    await Promise.all([http.get('/api/a'), http.get('/api/b'), http.get('/api/c')]);
    expect(seen.filter((c) => c.url === '/api/ignore/sys/refresh')).toHaveLength(1);
  });

  it('HTTP-09/HTTP-12: when the refresh fails, shows 登录超时, clears storage and goes to the root', async () => {
    signIn('old-token', 'refresh-1');
    handler = () => ({ status: 401, data: { code: 401, msg: MSG.loginTimeout, data: null } });
    await expect(http.get('/api/system/users')).rejects.toMatchObject({ code: 401, message: MSG.loginTimeout });
    expect(notify).toHaveBeenCalledTimes(1);
    expect(notify).toHaveBeenCalledWith('登录超时');
    expect(localStorage.getItem('token')).toBeNull();
    expect(useSession.getState().token).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/');
  });

  it('HTTP-12: a 401 on the replayed call ends the session instead of refreshing again', async () => {
    signIn('old-token', 'refresh-1');
    handler = (config) =>
      config.url === '/api/ignore/sys/refresh'
        ? {
            status: 200,
            data: { code: 200, msg: '', data: { token: 'new-token', refreshToken: 'refresh-2', expiresIn: 900 } },
          }
        : { status: 401, data: { code: 401, msg: MSG.loginTimeout, data: null } };
    await expect(http.get('/api/system/users')).rejects.toMatchObject({ code: 401 });
    expect(seen.filter((c) => c.url === '/api/ignore/sys/refresh')).toHaveLength(1);
    expect(notify).toHaveBeenCalledWith(MSG.loginTimeout);
    expect(navigate).toHaveBeenCalledWith('/');
  });

  it('a 401 from a public (ignore) call, such as a failed sign-in, shows the server reason and keeps the session', async () => {
    signIn();
    handler = () => ({ status: 401, data: { code: 401, msg: '用户名或密码错误', data: null } });
    await expect(http.post('/api/ignore/sys/login', {})).rejects.toMatchObject({ message: '用户名或密码错误' });
    expect(notify).toHaveBeenCalledWith('用户名或密码错误');
    expect(useSession.getState().token).not.toBeNull();
    expect(navigate).not.toHaveBeenCalled();
  });

  it('HTTP-13: an HTTP 403 shows 当前用户无操作权限，请联系管理员', async () => {
    signIn();
    handler = () => ({ status: 403, data: { code: 403, msg: 'forbidden', data: null } });
    await expect(http.delete('/api/system/user')).rejects.toMatchObject({ status: 403 });
    expect(notify).toHaveBeenCalledWith('当前用户无操作权限，请联系管理员');
  });

  it('HTTP-14: an HTTP 400 shows the response msg, or 系统异常', async () => {
    handler = () => ({ status: 400, data: { code: 400, msg: '验证码错误', data: null } });
    await expect(http.post('/api/system/user', {})).rejects.toMatchObject({ message: '验证码错误' });
    expect(notify).toHaveBeenLastCalledWith('验证码错误');

    handler = () => ({ status: 400, data: 'Bad Request' });
    await expect(http.post('/api/system/user', {})).rejects.toMatchObject({ message: MSG.systemError });
    expect(notify).toHaveBeenLastCalledWith('系统异常');
  });

  it('HTTP-15: any other error status shows 系统异常, as does a dropped connection', async () => {
    handler = () => ({ status: 500, data: { code: 500, msg: 'NullPointerException at …', data: { requestId: 'r1' } } });
    await expect(http.get('/api/system/users')).rejects.toMatchObject({ message: MSG.systemError });
    expect(notify).toHaveBeenLastCalledWith('系统异常');

    handler = () => ({ status: 502, data: '<html>Bad Gateway</html>' });
    await expect(http.get('/api/system/users')).rejects.toMatchObject({ status: 502 });
    expect(notify).toHaveBeenLastCalledWith('系统异常');

    handler = () => ({ status: 0, network: true });
    await expect(http.get('/api/system/users')).rejects.toMatchObject({ message: MSG.systemError });
    expect(notify).toHaveBeenCalledTimes(3);
  });

  it('SYS-26: a conflict (409) shows the server message written for the user', async () => {
    handler = () => ({ status: 409, data: { code: 409, msg: '存在下级机构，不允许删除', data: null } });
    await expect(http.delete('/api/system/dept/3')).rejects.toMatchObject({ code: 409 });
    expect(notify).toHaveBeenCalledWith('存在下级机构，不允许删除');
  });

  it('HTTP-16: messages stay 5 seconds', () => {
    expect(MESSAGE_SECONDS).toBe(5);
    staticNotifier.error('系统异常');
    expect(antdMessage.error).toHaveBeenCalledWith('系统异常', 5);
  });
});
