import type { Captcha, LoginBody, LoginResult, MenuNode, UserInfo } from '@ecrf/core';
import { http } from './request';

/** The shapes of these calls are core's contract (account.ts); named here as pages import them. */
export type { Captcha, LoginBody, LoginResult, SysUser, UserInfo } from '@ecrf/core';

export const authApi = {
  captcha: () => http.get<Captcha>('/api/ignore/common/captcha', { silent: true }),
  /** The sign-in page shows the server's own reason (验证码错误, 账号已锁定…) and refreshes the captcha. */
  login: (body: LoginBody) => http.post<LoginResult>('/api/ignore/sys/login', body, { silent: true }),
  logout: (refreshToken: string | null) =>
    http.post<null>('/api/sys/logout', refreshToken ? { refreshToken } : {}, { silent: true }),
  getInfo: (authToken?: string) => http.get<UserInfo>('/api/sys/login/getInfo', { authToken }),
  getRouters: (authToken?: string) => http.get<MenuNode[]>('/api/sys/login/getRouters', { authToken }),
  /** An active person's heartbeat: the server records the session's activity (idle sign-out). */
  ping: () => http.get<null>('/api/sys/session/ping', { silent: true }),
  changePassword: (body: { userId: number; oldPassword: string; newPassword: string }) =>
    http.put<null>('/api/system/user/password', body, { silent: true }),
  resetPassword: (body: { userId: number; newPassword: string }) =>
    http.put<null>('/api/system/user/password/reset', body, { silent: true }),
};
