import { create } from 'zustand';
import type { LoginResult, SysUser, UserInfo } from '../api/auth.api';
import { storage, type StoredUser } from './local-storage';

export interface SessionState {
  token: string | null;
  refreshToken: string | null;
  user: StoredUser | null;
  /** Button-permission codes kept in local storage across reloads (platform §6). */
  buttonPermissions: string[];
  /** Permissions of the current getInfo answer; empty until it has loaded. */
  permissions: string[];
  roles: string[];
  profile: SysUser | null;
  setPasswordMust: boolean;
  signIn: (result: LoginResult) => void;
  setInfo: (info: UserInfo) => void;
  setTokens: (token: string, refreshToken: string) => void;
  passwordChanged: () => void;
  clear: () => void;
}

function toStoredUser(user: SysUser, token: string): StoredUser {
  return {
    userId: user.userId,
    userName: user.userName,
    name: user.name,
    remark: user.remark ?? null,
    token,
    home: user.home ?? null,
  };
}

export const useSession = create<SessionState>()((set, get) => ({
  token: storage.getToken(),
  refreshToken: storage.getRefreshToken(),
  user: storage.getUser(),
  buttonPermissions: storage.getButtonPermissions(),
  permissions: [],
  roles: [],
  profile: null,
  setPasswordMust: storage.getSetPasswordMust(),

  signIn: (result) => {
    const user = toStoredUser(result.user, result.token);
    storage.setToken(result.token);
    storage.setRefreshToken(result.refreshToken);
    storage.setUser(user);
    storage.setSetPasswordMust(result.setPasswordMust);
    set({
      token: result.token,
      refreshToken: result.refreshToken,
      user,
      profile: result.user,
      setPasswordMust: result.setPasswordMust,
    });
  },

  setInfo: (info) => {
    const token = get().token ?? '';
    const user = toStoredUser(info.user, token);
    storage.setUser(user);
    storage.setButtonPermissions(info.permissions);
    const must = info.user.setPasswordMust ?? get().setPasswordMust;
    storage.setSetPasswordMust(must);
    set({
      setPasswordMust: must,
      user,
      profile: info.user,
      permissions: info.permissions,
      roles: info.roles,
      buttonPermissions: info.permissions,
    });
  },

  setTokens: (token, refreshToken) => {
    storage.setToken(token);
    storage.setRefreshToken(refreshToken);
    const user = get().user;
    if (user) storage.setUser({ ...user, token });
    set({ token, refreshToken, user: user ? { ...user, token } : null });
  },

  passwordChanged: () => {
    storage.setSetPasswordMust(false);
    set({ setPasswordMust: false });
  },

  clear: () => {
    storage.clear();
    set({
      token: null,
      refreshToken: null,
      user: null,
      buttonPermissions: [],
      permissions: [],
      roles: [],
      profile: null,
      setPasswordMust: false,
    });
  },
}));
