import { beforeEach, describe, expect, it } from 'vitest';
import type { SysUser } from '../api/auth.api';
import { STORAGE_KEYS } from './local-storage';
import { useSession } from './session.store';

const user: SysUser = {
  userId: 7,
  userName: '13800000001',
  name: '张护士',
  sex: 1,
  email: null,
  mobile: null,
  deptId: 1,
  remark: '随访护士',
  status: 0,
};

describe('session storage (forms §3)', () => {
  beforeEach(() => {
    window.localStorage.clear();
    useSession.getState().clear();
  });

  it('AUTH-06: local storage holds the token, the user object, the refresh token and the button-permission list', () => {
    useSession
      .getState()
      .signIn({ token: 'access-1', refreshToken: 'refresh-1', expiresIn: 900, setPasswordMust: false, user });
    useSession.getState().setInfo({ user, roles: ['nurse'], permissions: ['sys:user:add', 'btn:business.crf.sdv'] });

    expect(window.localStorage.getItem(STORAGE_KEYS.token)).toBe('access-1');
    expect(window.localStorage.getItem(STORAGE_KEYS.refreshToken)).toBe('refresh-1');
    expect(JSON.parse(window.localStorage.getItem(STORAGE_KEYS.user)!)).toMatchObject({
      userId: 7,
      userName: '13800000001',
      name: '张护士',
      remark: '随访护士',
      token: 'access-1',
    });
    expect(JSON.parse(window.localStorage.getItem(STORAGE_KEYS.buttonPermissions)!)).toEqual([
      'sys:user:add',
      'btn:business.crf.sdv',
    ]);
  });

  it('AUTH-06: a rotated token is written back to storage and to the stored user; clearing removes all four', () => {
    useSession
      .getState()
      .signIn({ token: 'access-1', refreshToken: 'refresh-1', expiresIn: 900, setPasswordMust: false, user });
    useSession.getState().setInfo({ user, roles: [], permissions: ['sys:user:add'] });
    useSession.getState().setTokens('access-2', 'refresh-2');
    expect(window.localStorage.getItem(STORAGE_KEYS.token)).toBe('access-2');
    expect(window.localStorage.getItem(STORAGE_KEYS.refreshToken)).toBe('refresh-2');
    expect(JSON.parse(window.localStorage.getItem(STORAGE_KEYS.user)!).token).toBe('access-2');

    useSession.getState().clear();
    for (const key of [
      STORAGE_KEYS.token,
      STORAGE_KEYS.refreshToken,
      STORAGE_KEYS.user,
      STORAGE_KEYS.buttonPermissions,
    ]) {
      expect(window.localStorage.getItem(key)).toBeNull();
    }
  });
});
