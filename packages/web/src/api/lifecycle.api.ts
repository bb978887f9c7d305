import type { GoLiveCounts, GoLivePreview, GoLiveResult, StudyGoLiveBody, StudyMode } from '@ecrf/core';
import { http } from './request';

/**
 * 测试 / 上线 (issue 36, docs/lifecycle.md): a study starts in 测试; a manager's 上线 purges the test patients and
 * everything hanging on them in one audited step. Shapes: core's study-contract.ts.
 */
export type { GoLiveCounts, GoLivePreview, GoLiveResult, StudyGoLiveBody, StudyMode };

export const lifecycleApi = {
  /** What 上线 would purge now, and the study's mode. */
  goLivePreview: (studyId: number) => http.get<GoLivePreview>('/api/business/study/golive', { params: { studyId } }),
  /** 上线: `confirmCode` must equal the study's code; answers when, and what was purged (msg 上线成功). */
  goLive: (body: StudyGoLiveBody) => http.post<GoLiveResult>('/api/business/study/golive', body),
};
