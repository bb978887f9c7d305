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
  operParam: string | null;
  jsonResult: string | null;
  status: number;
  httpStatus?: number | null;
  errorMsg: string | null;
  costTime: number | null;
  operTime: string;
}

export interface OperLogQuery {
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
