import type { OperLog, OperLogQuery, Page } from '@ecrf/core';
import { http } from './request';

/** The operation log's query and entries are core's contract (monitor-contract.ts); the pages import them here. */
export type { OperLog, OperLogQuery } from '@ecrf/core';

export const operLogApi = {
  list: (params: OperLogQuery) => http.get<Page<OperLog>>('/api/monitor/operlog/list', { params }),
};
