import type { Page } from '@ecrf/core';
import { http } from './request';

export interface OperLog {
  operId: number;
  title: string;
  businessType: number | string | null;
  method: string | null;
  requestMethod: string | null;
  operName: string | null;
  operUrl: string | null;
  operIp: string | null;
  /** Ids of what the operation acted on (`subjectRecordId=12 crfId=3`); the log keeps no values. */
  target: string | null;
  resultCode: number | null;
  studyId: number | null;
  status: number;
  httpStatus?: number | null;
  errorMsg: string | null;
  costTime: number | null;
  operTime: string;
}

export interface OperLogQuery {
  /** One study's entries; without it the whole log (system administrators only). */
  studyId?: number;
  pageNum: number;
  pageSize: number;
  title?: string;
  operName?: string;
  status?: number;
  beginTime?: string;
  endTime?: string;
}

export const operLogApi = {
  list: (params: OperLogQuery) => http.get<Page<OperLog>>('/api/monitor/operlog/list', { params }),
};
