import type { CommentAddBody, ItemComment } from '@ecrf/core';
import { http } from './request';

/** Field comments' (批注) shapes are core's contract (comment-contract.ts); the CRF page imports them here. */
export type { CommentAddBody, ItemComment } from '@ecrf/core';

export const commentApi = {
  /** A record's comments, oldest first; the page groups them by item. */
  list: (studyId: number, crfDataRecordId: number) =>
    http.get<ItemComment[]>('/api/business/crf/comments', { params: { studyId, crfDataRecordId } }),
  /** A refusal (a lock, a bound) is shown by the request wrapper in the server's words. */
  add: (body: CommentAddBody) => http.post<ItemComment>('/api/business/crf/comment', body),
};
