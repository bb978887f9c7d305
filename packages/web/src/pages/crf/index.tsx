import { useCallback, useEffect, useMemo } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/query-keys';
import { Empty, Result } from 'antd';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { hasPermission, STUDY_MANAGE, type StudyButton } from '@ecrf/core';
import { crfRecordApi } from '../../api/crf.api';
import { CrfWarmup } from '../../crf';
import { useRouteId } from '../../hooks/use-route-id';
import { CrfLayout } from '../../layouts/crf-layout';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';
import { NOT_FOUND_TEXT } from '../../locales/not-found.zh-CN';
import { useRealtimeEvent } from '../../realtime/realtime-events';
import { useSession } from '../../stores/session.store';
import { positiveIdOf } from '../../utils/positive-id';
import { CrfSidebar } from './components/crf-sidebar';
import { FormArea, type RecordParam } from './components/form-area';
import { findForm, initialForm, menuButtons } from './crf-menu';
import './crf.css';

const t = CRF_PAGE_TEXT;

function parseRecord(raw: string | null): RecordParam {
  return raw === 'new' ? 'new' : positiveIdOf(raw);
}

/**
 * crf.record (CRF-01): a subject's casebook. The sidebar lists the study's forms with their states;
 * `?crfId=&crfDataRecordId=` name the open form and record.
 */
export default function CrfRecordPage() {
  const routeId = useRouteId('subjectRecordId');
  const valid = routeId !== null;
  // An address without a valid id renders the 404 below; the queries stay off for it.
  const subjectRecordId = routeId ?? 0;
  const [search, setSearch] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const crfIdParam = Number(search.get('crfId')) || null;
  const recordParam = parseRecord(search.get('crfDataRecordId'));
  const permissions = useSession((s) => s.permissions);

  const menuQuery = useQuery({
    queryKey: queryKeys.crfRecord.menu(subjectRecordId),
    queryFn: () => crfRecordApi.menu(subjectRecordId).then((res) => res.data),
    enabled: valid,
  });
  const patientQuery = useQuery({
    queryKey: queryKeys.crfRecord.patient(subjectRecordId),
    queryFn: () => crfRecordApi.patientInfo(subjectRecordId).then((res) => res.data),
    enabled: valid,
  });
  const patient = patientQuery.data;
  const studyId = patient?.studyId ?? null;
  const doubtFlag = useQuery({
    queryKey: queryKeys.crfRecord.doubtFlag(studyId),
    queryFn: () => crfRecordApi.studyDoubtFlag(studyId!).then((res) => res.data),
    enabled: studyId !== null,
  });

  // A query raised, answered or closed on one of this patient's forms, by someone else or by the system after a
  // submit (after the save's answer): the form's state in the menu and its item markers are read again.
  const queryClient = useQueryClient();
  useRealtimeEvent('record.queries', (push) => {
    if (!patient || push.subjectId !== patient.id) return;
    void queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.menu(subjectRecordId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.formDetails(subjectRecordId, push.crfId) });
  });

  const menu = menuQuery.data;
  // CRF-12: the form the address names, else the first one.
  useEffect(() => {
    if (!menu) return;
    const chosen = findForm(menu, crfIdParam);
    if (chosen) return;
    const first = initialForm(menu, crfIdParam);
    if (first) setSearch({ crfId: String(first.crfId) }, { replace: true });
  }, [menu, crfIdParam, setSearch]);
  const form = menu ? findForm(menu, crfIdParam) : null;

  const buttons = useMemo(() => menuButtons(menu ?? []), [menu]);
  const can = useCallback(
    // forms §6: the study buttons come with the menu; 项目维护 holders and the administrator hold them all.
    (code: StudyButton) => buttons.includes(code) || hasPermission(permissions, STUDY_MANAGE),
    [buttons, permissions],
  );

  const selectForm = useCallback(
    (crfId: number) => {
      if (crfId !== crfIdParam) setSearch({ crfId: String(crfId) });
    },
    [crfIdParam, setSearch],
  );
  const setRecord = useCallback(
    (record: RecordParam, replace = false) => {
      if (crfIdParam === null) return;
      const next: Record<string, string> = { crfId: String(crfIdParam) };
      if (record !== null) next.crfDataRecordId = String(record);
      setSearch(next, { replace });
    },
    [crfIdParam, setSearch],
  );

  // CRF-10: one page back; a casebook opened directly goes to its study's patient list.
  const back = () => {
    if (location.key !== 'default') void navigate(-1);
    else if (studyId) void navigate(`/project/${studyId}/subject`);
    else void navigate('/studyList');
  };

  if (!valid) return <Result status="404" title={NOT_FOUND_TEXT.subTitle} />;

  return (
    <CrfLayout
      sidebar={
        <CrfSidebar
          subjectRecordId={subjectRecordId}
          patient={patient}
          menu={menu}
          menuLoading={menuQuery.isFetching}
          selectedCrfId={form?.crfId ?? null}
          crfTitle={form?.title ?? ''}
          recorder={patient?.creater ?? ''}
          onSelect={selectForm}
          onBack={back}
        />
      }
    >
      <CrfWarmup />
      {menuQuery.isError ? (
        <Result status="warning" title={t.loadFailed} />
      ) : !menu ? null : !form ? (
        <Empty description={t.noForms} />
      ) : (
        <FormArea
          key={form.crfId}
          subjectRecordId={subjectRecordId}
          form={form}
          patient={patient}
          recordParam={recordParam}
          setRecord={setRecord}
          can={can}
          doubtOn={doubtFlag.data === '1'}
        />
      )}
    </CrfLayout>
  );
}
