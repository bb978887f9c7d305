import { http } from './request';

export interface SysConfigEntry {
  fieldName: string;
  fieldValue: string;
}

export const baseApi = {
  /** System config (SystemTitle, Version); quiet because the shell falls back to the default title. */
  sysConfig: () =>
    http.get<SysConfigEntry[]>('/api/v1/base/sysconfig/getbasesysconfiglist', {
      params: { key: 'systemtitle' },
      silent: true,
    }),
};

export function configValue(entries: readonly SysConfigEntry[] | undefined, fieldName: string): string | undefined {
  return entries?.find((entry) => entry.fieldName === fieldName)?.fieldValue || undefined;
}
