import { http } from './request';

export interface SysConfigEntry {
  fieldName: string;
  fieldValue: string;
}

export interface Notice {
  noticeId: number;
  title: string;
  content: string;
  createTime: string;
  /** The signed-in user's own read mark. */
  read: boolean;
}

export const baseApi = {
  /** Notices (SHELL-34); quiet: a missing list must not interrupt the user with a message. */
  notices: () =>
    http.get<{ list: Notice[]; total: number }>('/api/system/notice/list', {
      params: { pageNum: 1, pageSize: 10 },
      silent: true,
    }),
  /** Marks the given notices (or all of the caller's) read; answers how many stay unread. */
  markNoticesRead: (noticeIds?: number[]) =>
    http.put<{ unread: number }>('/api/system/notice/read', noticeIds ? { noticeIds } : {}, { silent: true }),
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
