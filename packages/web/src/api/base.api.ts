import type { MyNotice, MyNoticeListQuery, MyNoticePage, NoticeReadBody, SysConfigField } from '@ecrf/core';
import { http } from './request';

/** A field of the system settings (core's system contract). */
export type SysConfigEntry = SysConfigField;

/** A notice as its reader sees it, with their own read mark (core's shell contract). */
export type Notice = MyNotice;

export const baseApi = {
  /** Notices (SHELL-34); quiet: a missing list must not interrupt the user with a message. */
  notices: () =>
    http.get<MyNoticePage>('/api/system/notice/list', {
      params: { pageNum: 1, pageSize: 10 } satisfies MyNoticeListQuery,
      silent: true,
    }),
  /** Marks the given notices (or all of the caller's) read; answers how many stay unread. */
  markNoticesRead: (noticeIds?: NoticeReadBody['noticeIds']) => {
    const body: NoticeReadBody = noticeIds ? { noticeIds } : {};
    return http.put<{ unread: number }>('/api/system/notice/read', body, { silent: true });
  },
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
