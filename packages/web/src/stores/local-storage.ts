import { SIGN_OUT_NOTICE_KEY } from './sign-out-notice';

/**
 * The browser's durable copy of the session (forms §3: token, user object, refresh token and
 * button-permission list). Kept apart from the zustand store so the request wrapper can read
 * the token without React.
 */
export interface StoredUser {
  userId: number;
  userName: string;
  name: string;
  remark: string | null;
  token: string;
  home?: string | null;
}

/** Keys of personal preferences: kept when the session's storage is cleared. */
export const PREFERENCE_PREFIX = 'edc.pref.';

export const STORAGE_KEYS = {
  token: 'token',
  refreshToken: 'refreshToken',
  user: 'userInfo',
  buttonPermissions: 'btnPermissions',
  setPasswordMust: 'setPasswordMust',
  studyName: 'studyName',
} as const;

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null): void {
  if (value === null) window.localStorage.removeItem(key);
  else window.localStorage.setItem(key, value);
}

function readJson<T>(key: string, fallback: T): T {
  const raw = read(key);
  if (!raw) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

export const storage = {
  getToken: (): string | null => read(STORAGE_KEYS.token),
  setToken: (token: string | null): void => write(STORAGE_KEYS.token, token),
  getRefreshToken: (): string | null => read(STORAGE_KEYS.refreshToken),
  setRefreshToken: (token: string | null): void => write(STORAGE_KEYS.refreshToken, token),
  getUser: (): StoredUser | null => readJson<StoredUser | null>(STORAGE_KEYS.user, null),
  setUser: (user: StoredUser | null): void => write(STORAGE_KEYS.user, user ? JSON.stringify(user) : null),
  getButtonPermissions: (): string[] => readJson<string[]>(STORAGE_KEYS.buttonPermissions, []),
  setButtonPermissions: (codes: string[]): void => write(STORAGE_KEYS.buttonPermissions, JSON.stringify(codes)),
  getSetPasswordMust: (): boolean => read(STORAGE_KEYS.setPasswordMust) === 'true',
  setSetPasswordMust: (must: boolean): void => write(STORAGE_KEYS.setPasswordMust, must ? 'true' : null),
  getStudyName: (): string | null => read(STORAGE_KEYS.studyName),
  setStudyName: (name: string | null): void => write(STORAGE_KEYS.studyName, name),
  /**
   * Log out and session expiry clear all of local storage (platform §2, §8), not only our keys, except a
   * user's personal preferences (语音播报), which hold no session or clinical data.
   */
  clear: (): void => {
    try {
      const kept: [string, string][] = [];
      for (let i = 0; i < window.localStorage.length; i += 1) {
        const key = window.localStorage.key(i);
        const value = key?.startsWith(PREFERENCE_PREFIX) ? window.localStorage.getItem(key) : null;
        if (key && value !== null) kept.push([key, value]);
      }
      window.localStorage.clear();
      for (const [key, value] of kept) window.localStorage.setItem(key, value);
      // The tab's session state (the 数据检索 page keeps its search there) holds conditions and values: gone too,
      // except why the session ended, written just before (idle sign-out) for the sign-in page to say.
      const notice = window.sessionStorage.getItem(SIGN_OUT_NOTICE_KEY);
      window.sessionStorage.clear();
      if (notice !== null) window.sessionStorage.setItem(SIGN_OUT_NOTICE_KEY, notice);
    } catch {
      // Storage can be unavailable (private mode); there is nothing left to clear then.
    }
  },
};
