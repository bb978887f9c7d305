import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button } from 'antd';
import { queryKeys } from '../../../../api/query-keys';
import { randomizationApi } from '../../../../api/randomization.api';
import { studyApi } from '../../../../api/study.api';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { useSession } from '../../../../stores/session.store';
import { canInStudy } from '../../study-access';
import { RAND_BUTTONS } from '../rand-access';
import { armText, UnblindedMark } from './randomization-result';
import { RandomizeDialog } from './randomize-dialog';
import { TestRandomizationTag } from '../../../../components/test-data-tag';

const t = RANDOMIZATION_TEXT;

/**
 * The casebook header's randomization (issue 15): the number and the arm or blinded code once randomized (with
 * 已紧急揭盲), else 随机 for staff who may randomize. Nothing while the study has no randomization.
 */
export function PatientRandomization({
  studyId,
  subjectId,
  identificationCode,
  subjectName,
}: {
  studyId: number;
  subjectId: number;
  identificationCode: string;
  subjectName: string;
}) {
  const [open, setOpen] = useState(false);
  const permissions = useSession((s) => s.permissions);
  const buttonPermissions = useSession((s) => s.buttonPermissions);
  const study = useQuery({
    queryKey: queryKeys.study.detail(studyId),
    queryFn: () => studyApi.get(studyId).then((res) => res.data),
  });
  const config = useQuery({
    queryKey: queryKeys.randomization.config(studyId),
    queryFn: () => randomizationApi.config(studyId, true).then((res) => res.data),
  });
  const result = useQuery({
    queryKey: queryKeys.randomization.subject(studyId, subjectId),
    queryFn: () => randomizationApi.subject(studyId, subjectId, true).then((res) => res.data),
    enabled: Boolean(config.data?.configured),
  });
  const may = useMemo(
    () =>
      canInStudy(
        { permissions: [...permissions, ...buttonPermissions], myRole: study.data?.myRole },
        RAND_BUTTONS.subject,
      ),
    [permissions, buttonPermissions, study.data?.myRole],
  );
  if (!config.data?.configured || result.isLoading) return null;
  const r = result.data;
  return (
    <div className="crf-randomization">
      {r ? (
        <>
          <span className="rand-code">{r.randomizationNo}</span>
          <TestRandomizationTag test={r.test} />
          <span className="rand-code crf-randomization-arm">{armText(r)}</span>
          {r.emergencyUnblinded && <UnblindedMark />}
        </>
      ) : may ? (
        <Button size="small" onClick={() => setOpen(true)}>
          {t.randomize}
        </Button>
      ) : null}
      <RandomizeDialog
        studyId={studyId}
        target={open ? { subjectId, identificationCode, subjectName } : null}
        onClose={() => setOpen(false)}
      />
    </div>
  );
}
