import { useState } from 'react';
import type { MissingMarks } from '@ecrf/core';
import type { CrfRecordDetail } from '../../api/crf.api';
import {
  draftKey,
  readDraft,
  reviewDraft,
  writeDraft,
  type CrfDraft,
  type DraftReview,
  type FormValues,
} from './save-flow';

export interface DraftOffer {
  review: DraftReview;
  draft: CrfDraft;
  /** The storage keys it was found under: all of them are cleared once the nurse decides. */
  keys: string[];
}

/**
 * Unsaved values a draft kept from an earlier visit to this record, offered back when it opens (only when they
 * differ from what the server holds now). `take` answers the values to restore; either way the draft is removed.
 */
export function useDraftOffer(
  userId: number | null,
  subjectRecordId: number,
  crfId: number,
  detail: CrfRecordDetail,
  loaded: FormValues,
  loadedMarks?: MissingMarks,
) {
  const [offer, setOffer] = useState<DraftOffer | null>(() => {
    const recordId = detail.crfDataRecord?.id ?? null;
    const keys = [draftKey(userId, subjectRecordId, crfId, recordId)];
    // A single form someone else created while this user typed into a new one (a conflict, then
    // 刷新): the draft was kept under "new" and belongs to the record that now exists.
    if (recordId !== null && detail.repeat === 1) keys.push(draftKey(userId, subjectRecordId, crfId, null));
    for (const key of keys) {
      const draft = readDraft(window.localStorage, key);
      if (!draft) continue;
      const review = reviewDraft(draft, loaded, loadedMarks);
      if (review.items.length > 0) return { review, draft, keys };
    }
    return null;
  });

  const discard = () => {
    for (const key of offer?.keys ?? []) writeDraft(window.localStorage, key, null);
    setOffer(null);
  };
  /** The restored edits then live under this record's key only, written by the editor's next draft. */
  const take = (): DraftReview | null => {
    if (!offer) return null;
    discard();
    return offer.review;
  };
  return { offer, take, discard };
}
