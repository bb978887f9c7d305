import { DEFAULT_PAGE_SIZE } from '@ecrf/core';

export interface OpenListParams {
  pageNum: number;
  pageSize?: number;
  studyName?: string;
}

/**
 * platform §9 (STUDY-08): the open study list asks for pageNum 1 without a page size. The server's
 * default size is the table default, so the size is sent only once the user picks another one.
 */
export function openListParams(paging: { pageNum: number; pageSize: number }, studyName: string): OpenListParams {
  const params: OpenListParams = { pageNum: paging.pageNum };
  if (paging.pageSize !== DEFAULT_PAGE_SIZE) params.pageSize = paging.pageSize;
  if (studyName.trim()) params.studyName = studyName.trim();
  return params;
}
