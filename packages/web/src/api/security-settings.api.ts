import type { SecuritySettingChange, SecuritySettings } from '@ecrf/core';
import { http } from './request';

export type { SecuritySettingChange, SecuritySettings } from '@ecrf/core';

/** 系统设置: password aging, password history and idle sign-out (issue 36). */
export const securitySettingsApi = {
  get: () => http.get<SecuritySettings>('/api/system/security-settings'),
  /** The page reports the outcome itself (the server's text). */
  save: (body: SecuritySettings) => http.put<SecuritySettings>('/api/system/security-settings', body, { silent: true }),
  history: () => http.get<SecuritySettingChange[]>('/api/system/security-settings/history'),
};
