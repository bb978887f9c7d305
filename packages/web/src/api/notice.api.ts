import type { NoticeAdminRow, NoticeBody, NoticeManageListQuery, NoticeSaved, Page } from '@ecrf/core';
import { http } from './request';

/** 通知公告管理's calls; requests and answers are core's contract (notice-contract.ts), the pages import them here. */
export type { NoticeAdminRow, NoticeBody } from '@ecrf/core';

export const noticeAdminApi = {
  list: (params: NoticeManageListQuery) => http.get<Page<NoticeAdminRow>>('/api/system/notice/manage/list', { params }),
  add: (body: NoticeBody) => http.post<NoticeSaved>('/api/system/notice', body),
  update: (noticeId: number, body: NoticeBody) => http.put<NoticeSaved>(`/api/system/notice/${noticeId}`, body),
  remove: (noticeId: number) => http.delete<null>(`/api/system/notice/${noticeId}`),
};
