import type { MenuNode } from '@ecrf/core';
import { http } from './request';

/** docs/api.md `user`. */
export interface SysUser {
  userId: number;
  userName: string;
  name: string;
  sex: number | null;
  email: string | null;
  mobile: string | null;
  deptId: number | null;
  deptName?: string | null;
  remark: string | null;
  status: number;
  home?: string | null;
  setPasswordMust?: boolean;
  roleIds?: number[];
  roleNames?: string[];
  createTime?: string;
}

export interface Captcha {
  captchaEnabled: boolean;
  uuid: string;
  img: string;
}

export interface LoginBody {
  username: string;
  password: string;
  code: string;
  uuid: string;
}

export interface LoginResult {
  token: string;
  refreshToken: string;
  expiresIn: number;
  setPasswordMust: boolean;
  user: SysUser;
}

export interface UserInfo {
  user: SysUser;
  roles: string[];
  roleNames?: string[];
  permissions: string[];
}

export const authApi = {
  captcha: () => http.get<Captcha>('/api/ignore/common/captcha', { silent: true }),
  /** The sign-in page shows the server's own reason (验证码错误, 账号已锁定…) and refreshes the captcha. */
  login: (body: LoginBody) => http.post<LoginResult>('/api/ignore/sys/login', body, { silent: true }),
  logout: (refreshToken: string | null) =>
    http.post<null>('/api/sys/logout', refreshToken ? { refreshToken } : {}, { silent: true }),
  getInfo: (authToken?: string) => http.get<UserInfo>('/api/sys/login/getInfo', { authToken }),
  getRouters: (authToken?: string) => http.get<MenuNode[]>('/api/sys/login/getRouters', { authToken }),
  changePassword: (body: { userId: number; oldPassword: string; newPassword: string }) =>
    http.put<null>('/api/system/user/password', body, { silent: true }),
  resetPassword: (body: { userId: number; newPassword: string }) =>
    http.put<null>('/api/system/user/password/reset', body, { silent: true }),
};
