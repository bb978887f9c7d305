import type { NoticeTarget, Page } from '@ecrf/core';
import { http } from './request';

/** A row of the administrators' notice list (通知公告管理). */
export interface NoticeAdminRow {
  noticeId: number;
  title: string;
  content: string;
  targetType: NoticeTarget;
  targetRoleId: number | null;
  targetStudyId: number | null;
  /** The role's or study's name; null for all users. */
  targetName: string | null;
  readCount: number;
  createTime: string;
  updateTime: string;
}

export interface NoticeBody {
  title: string;
  content: string;
  targetType: NoticeTarget;
  targetRoleId?: number | null;
  targetStudyId?: number | null;
}

export const noticeAdminApi = {
  list: (params: { pageNum: number; pageSize: number; title?: string | undefined }) =>
    http.get<Page<NoticeAdminRow>>('/api/system/notice/manage/list', { params }),
  add: (body: NoticeBody) => http.post<{ noticeId: number }>('/api/system/notice', body),
  update: (noticeId: number, body: NoticeBody) =>
    http.put<{ noticeId: number }>(`/api/system/notice/${noticeId}`, body),
  remove: (noticeId: number) => http.delete<null>(`/api/system/notice/${noticeId}`),
};
