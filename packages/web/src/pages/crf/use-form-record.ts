import { useCallback, useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { crfRecordApi, type CrfRecordDetail, type CrfSaveResult } from '../../api/crf.api';
import { queryKeys } from '../../api/query-keys';

/** The address's record: a saved record's id, "new" for one not saved yet, or none chosen. */
export type RecordParam = number | 'new' | null;

const detailKey = (subjectRecordId: number, crfId: number, record: RecordParam) =>
  queryKeys.crfRecord.detail(subjectRecordId, crfId, record ?? 'auto');

/** Whether a detail answers the record the address names. */
function matches(detail: CrfRecordDetail, record: RecordParam): boolean {
  if (typeof record === 'number') return detail.crfDataRecord?.id === record;
  if (record === 'new') return detail.crfDataRecord === null;
  return true;
}

export interface FormRecordOptions {
  subjectRecordId: number;
  crfId: number;
  repeatable: boolean;
  recordParam: RecordParam;
  /** Points the address at a record (replace: without a new history entry). */
  setRecord: (record: RecordParam, replace?: boolean) => void;
}

/**
 * The record of one form the page works on: the repeatable form's record list, the record's detail, and the
 * editor session it is shown in. `epoch` keys the editor: a new one starts when the user opens another record
 * or the record is reloaded, not when a new record receives its id from its first save.
 */
export function useFormRecord({ subjectRecordId, crfId, repeatable, recordParam, setRecord }: FormRecordOptions) {
  const queryClient = useQueryClient();

  const dataList = useQuery({
    queryKey: queryKeys.crfRecord.dataList(subjectRecordId, crfId),
    queryFn: () => crfRecordApi.dataList(subjectRecordId, crfId).then((res) => res.data),
    enabled: repeatable,
  });

  // A repeatable form opened without a record opens its latest one, or a new one when it has none.
  const waitingForChoice = repeatable && recordParam === null;
  const rows = dataList.data;
  useEffect(() => {
    if (!waitingForChoice || !rows) return;
    const last = rows.at(-1);
    setRecord(last ? last.crfDataRecordId : 'new', true);
  }, [waitingForChoice, rows, setRecord]);

  const detailQuery = useQuery({
    queryKey: detailKey(subjectRecordId, crfId, recordParam),
    queryFn: () =>
      crfRecordApi
        .detail(subjectRecordId, crfId, typeof recordParam === 'number' ? recordParam : null)
        .then((res) => res.data),
    enabled: !waitingForChoice,
    // A record opened again is read afresh: a nurse must never start typing into old values.
    gcTime: 0,
  });

  // The editor lives as long as the user works on one record. A new record that receives its id
  // from its first save keeps its editor (and whatever was typed meanwhile).
  const [adopted, setAdopted] = useState<number | null>(null);
  const [session, setSession] = useState<{ record: RecordParam; epoch: number }>({ record: recordParam, epoch: 0 });
  if (session.record !== recordParam) {
    const keep = typeof recordParam === 'number' && adopted === recordParam;
    setSession({ record: recordParam, epoch: keep ? session.epoch : session.epoch + 1 });
  }
  const [mounted, setMounted] = useState<{ epoch: number; detail: CrfRecordDetail } | null>(null);
  const fresh = detailQuery.data && matches(detailQuery.data, session.record) ? detailQuery.data : null;
  if (fresh && (mounted?.epoch !== session.epoch || mounted.detail !== fresh)) {
    setMounted({ epoch: session.epoch, detail: fresh });
  }
  const detail = mounted?.epoch === session.epoch ? mounted.detail : null;

  const refreshAll = useCallback(async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.menu(subjectRecordId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.formDetails(subjectRecordId, crfId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.dataList(subjectRecordId, crfId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.audits() }),
    ]);
  }, [queryClient, subjectRecordId, crfId]);

  /** A save's record: a new record of a repeatable form goes into the address, keeping its editor. */
  const adoptSaved = useCallback(
    (result: CrfSaveResult, created: boolean) => {
      if (created && repeatable) {
        setAdopted(result.crfDataRecordId);
        setRecord(result.crfDataRecordId, true);
      }
    },
    [repeatable, setRecord],
  );

  const reload = useCallback(() => {
    setSession((s) => ({ ...s, epoch: s.epoch + 1 }));
    // Reset, not just invalidate: the new editor must start from what the server holds now.
    void queryClient.resetQueries({ queryKey: queryKeys.crfRecord.formDetails(subjectRecordId, crfId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.menu(subjectRecordId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.dataList(subjectRecordId, crfId) });
  }, [queryClient, subjectRecordId, crfId]);

  return {
    dataList,
    detailQuery,
    waitingForChoice,
    detail,
    epoch: session.epoch,
    refreshAll,
    adoptSaved,
    reload,
  };
}
