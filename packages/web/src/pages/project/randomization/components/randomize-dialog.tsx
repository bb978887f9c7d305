import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Modal, Spin } from 'antd';
import { queryKeys } from '../../../../api/query-keys';
import { randomizationApi, type SubjectRandomization } from '../../../../api/randomization.api';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { RandomizationResultView } from './randomization-result';
import '../randomization.css';

const t = RANDOMIZATION_TEXT;

export interface RandomizeTarget {
  subjectId: number;
  identificationCode: string;
  subjectName: string;
}

/**
 * 随机 (RAND-05): asks once (randomization is irrevocable), then shows the number and the arm or blinded code; a
 * patient who does not meet the eligibility is refused with the server's message, in the dialog.
 */
export function RandomizeDialog({
  studyId,
  target,
  onClose,
}: {
  studyId: number;
  target: RandomizeTarget | null;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const [done, setDone] = useState<SubjectRandomization | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  // A patient randomized before shows the result (randomization is once and for all).
  const existing = useQuery({
    queryKey: queryKeys.randomization.subject(studyId, target?.subjectId ?? 0),
    queryFn: () => randomizationApi.subject(studyId, target!.subjectId).then((res) => res.data),
    enabled: Boolean(target),
  });
  const run = useMutation({
    mutationFn: () => randomizationApi.randomize(studyId, target!.subjectId),
    onSuccess: (res) => {
      setDone(res.data);
      void queryClient.invalidateQueries({ queryKey: queryKeys.randomization.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.lists() });
    },
    onError: (error) => setRefusal(error.message),
  });
  const close = () => {
    setDone(null);
    setRefusal(null);
    run.reset();
    onClose();
  };
  const shown = done ?? existing.data ?? null;
  const loading = Boolean(target) && existing.isLoading;
  return (
    <Modal
      open={Boolean(target)}
      title={done ? t.randomizedTitle : shown ? t.resultTitle : t.randomizeTitle}
      onCancel={close}
      destroyOnHidden
      footer={
        shown || loading ? (
          <Button type="primary" onClick={close}>
            {t.close}
          </Button>
        ) : (
          <>
            <Button onClick={close}>{t.cancel}</Button>
            <Button type="primary" loading={run.isPending} onClick={() => run.mutate()}>
              {t.confirmRandomize}
            </Button>
          </>
        )
      }
    >
      {loading && <Spin style={{ display: 'block', margin: '24px auto' }} />}
      {target && !shown && !loading && (
        <p>{t.randomizeConfirm(`${target.subjectName}（${target.identificationCode}）`)}</p>
      )}
      {refusal && !shown && <Alert type="error" showIcon title={refusal} className="rand-alert" />}
      {shown && <RandomizationResultView result={shown} />}
    </Modal>
  );
}
