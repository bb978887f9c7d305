import axios, { type AxiosRequestConfig, type AxiosResponse } from 'axios';
import { message } from 'antd';
import { MSG } from '@ecrf/core';
import { MESSAGE_SECONDS } from '../utils/message-seconds';
import { storage } from '../stores/local-storage';
import { useSession } from '../stores/session.store';
import { setSignOutNotice } from '../stores/sign-out-notice';

/** The envelope every JSON answer uses (docs/api.md). */
export interface ApiResult<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

declare module 'axios' {
  interface AxiosRequestConfig {
    /**
     * The caller shows its own messages (platform §8: "unless the request handles errors itself").
     * Session expiry is still announced, because the caller cannot recover from it.
     */
    silent?: boolean;
    /** A token to use instead of the stored one: sign-in loads the user before storing the session. */
    authToken?: string;
    /** Marks the single retry made after a silent token refresh, so a second 401 ends the session. */
    retried?: boolean;
  }
}

/** A failed call: body code (or HTTP status when there is no body) and the text that was shown. */
export class ApiError extends Error {
  readonly code: number;
  readonly status: number | null;
  readonly data: unknown;

  constructor(code: number, msg: string, status: number | null, data?: unknown) {
    super(msg);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.data = data;
  }
}

export { MESSAGE_SECONDS };

export interface Notifier {
  error: (text: string) => void;
}

/** The static antd message works before the React tree exists. */
export const staticNotifier: Notifier = {
  error: (text) => void message.error(text, MESSAGE_SECONDS),
};

// app.tsx swaps in the context-aware instance from <App> so messages follow the theme.
let notifier: Notifier = staticNotifier;
let navigateTo: (path: string) => void = (path) => window.location.assign(path);

export function setNotifier(next: Notifier): void {
  notifier = next;
}

export function setNavigator(next: (path: string) => void): void {
  navigateTo = next;
}

const IGNORE_MARK = 'ignore';
const REFRESH_URL = '/api/ignore/sys/refresh';

export const instance = axios.create({
  baseURL: import.meta.env.VITE_API_BASE ?? '',
  timeout: 6000000,
  withCredentials: true,
});

function isEnvelope(body: unknown): body is ApiResult {
  return typeof body === 'object' && body !== null && 'code' in body && typeof (body as ApiResult).code === 'number';
}

function isBlobResponse(response: AxiosResponse): boolean {
  return response.config.responseType === 'blob' || (typeof Blob !== 'undefined' && response.data instanceof Blob);
}

function isIgnoreUrl(url: string | undefined): boolean {
  return (url ?? '').includes(IGNORE_MARK);
}

instance.interceptors.request.use((config) => {
  const token = config.authToken ?? useSession.getState().token;
  config.headers.set('Authorization', isIgnoreUrl(config.url) || !token ? '' : `Bearer ${token}`);
  // A random parameter defeats caches between the browser and the server (platform §7).
  config.params = { ...(config.params as Record<string, unknown> | undefined), _n: Math.random() };
  return config;
});

/**
 * Session over: one 登录超时 message, storage cleared, back to the root (the guard then sends
 * the visitor to /login) or to `to` (a refused realtime connection goes to /login, platform §2).
 * Only the first of several failing parallel calls announces it. A `reason` the server gave (idle sign-out, an
 * expired account) replaces 登录超时 and stays on the sign-in page.
 */
export function expireSession(to = '/', reason?: string): ApiError {
  const session = useSession.getState();
  const hadSession = session.token !== null;
  session.clear();
  const text = reason ?? MSG.loginTimeout;
  if (hadSession) {
    if (reason) setSignOutNotice(reason);
    notifier.error(text);
    navigateTo(to);
  }
  return new ApiError(401, text, 401);
}

let refreshing: Promise<void> | null = null;

/** One refresh in flight at a time: parallel 401s (and a refused realtime handshake) wait for the same new token. */
export function refreshTokens(): Promise<void> {
  refreshing ??= (async () => {
    const session = useSession.getState();
    // Another tab of this browser may have rotated the pair already. Presenting the rotated
    // refresh token again reads as theft to the server and ends the session in every tab,
    // so take the newer pair that tab stored instead.
    const storedRefresh = storage.getRefreshToken();
    const storedToken = storage.getToken();
    if (storedRefresh && storedToken && storedRefresh !== session.refreshToken && storedToken !== session.token) {
      session.setTokens(storedToken, storedRefresh);
      return;
    }
    const refreshToken = session.refreshToken;
    if (!refreshToken) throw new ApiError(401, MSG.loginTimeout, 401);
    const res = await instance.post<ApiResult<{ token: string; refreshToken: string }>>(
      REFRESH_URL,
      { refreshToken },
      { silent: true },
    );
    useSession.getState().setTokens(res.data.data.token, res.data.data.refreshToken);
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

instance.interceptors.response.use(
  (response) => {
    if (isBlobResponse(response)) return response;
    const body: unknown = response.data;
    if (!isEnvelope(body) || body.code === 200) return response;
    if (body.code === 401) throw expireSession();
    const text = body.msg || MSG.failed;
    if (!response.config.silent) notifier.error(text);
    throw new ApiError(body.code, text, response.status, body.data);
  },
  async (error: unknown) => {
    if (!axios.isAxiosError(error)) throw error;
    const config = error.config;
    const response = error.response;
    const status = response?.status ?? null;
    const body = isEnvelope(response?.data) ? response.data : null;

    // A nurse filling a form all day must not lose her work to an expired access token:
    // refresh once, silently, and replay the call before declaring the session over.
    if (status === 401 && config && !isIgnoreUrl(config.url)) {
      if (config.retried || !useSession.getState().refreshToken) throw expireSession();
      try {
        await refreshTokens();
      } catch (refused) {
        // The refresh's own refusal says why when it can (长时间未操作…, 账号已过期…).
        const reason =
          refused instanceof ApiError && refused.status === 401 && refused.message !== MSG.loginTimeout
            ? refused.message
            : undefined;
        throw expireSession('/', reason);
      }
      return instance.request({ ...config, retried: true });
    }

    let text: string;
    if (status === 401) {
      // Only public (ignore) calls get here: a failed sign-in explains itself.
      text = body?.msg || MSG.loginTimeout;
    } else if (status === 403) {
      // A refused sign-in (账号已停用, 账号已过期) explains itself; elsewhere 403 is the permission message.
      text = isIgnoreUrl(config?.url) && body?.msg ? body.msg : MSG.forbidden;
    } else if (status === 400) {
      text = body?.msg || MSG.systemError;
    } else if (status !== null && status > 400 && status < 500 && body?.msg) {
      // 404/409/423/429 carry a message written for the user (存在下级机构，不允许删除, 账号已锁定…);
      // it says more than the generic 系统异常 the catalogue falls back to.
      text = body.msg;
    } else {
      text = MSG.systemError;
    }
    if (!config?.silent) notifier.error(text);
    throw new ApiError(body?.code ?? status ?? 0, text, status, body?.data);
  },
);

export type RequestOptions = Omit<AxiosRequestConfig, 'url' | 'method' | 'data'>;

/** JSON calls answer the envelope; a failed call rejects with ApiError after its message was shown. */
export const http = {
  get: <T>(url: string, options?: RequestOptions) => instance.get<ApiResult<T>>(url, options).then((res) => res.data),
  post: <T>(url: string, data?: unknown, options?: RequestOptions) =>
    instance.post<ApiResult<T>>(url, data, options).then((res) => res.data),
  put: <T>(url: string, data?: unknown, options?: RequestOptions) =>
    instance.put<ApiResult<T>>(url, data, options).then((res) => res.data),
  delete: <T>(url: string, options?: RequestOptions) =>
    instance.delete<ApiResult<T>>(url, options).then((res) => res.data),
  /** File downloads come back as the raw response so callers can read the blob and its headers. */
  download: (url: string, options?: RequestOptions & { method?: 'GET' | 'POST'; data?: unknown }) =>
    instance.request<Blob>({ ...options, url, responseType: 'blob' }),
};
