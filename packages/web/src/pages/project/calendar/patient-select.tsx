import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import type { CalendarEventSubject } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { subjectRecordApi } from '../../../api/subject.api';
import { CALENDAR_TEXT } from '../../../locales/calendar.zh-CN';

const C = CALENDAR_TEXT;
/** How many patients the picker offers at once; typing narrows them by code. */
export const PATIENT_OPTIONS_MAX = 20;

/** A patient as the picker names it: code and name (the server masked the name for a caller without 查看患者身份信息). */
export function patientLabel(p: Pick<CalendarEventSubject, 'identificationCode' | 'subjectName'>): string {
  return p.subjectName ? `${p.identificationCode} ${p.subjectName}` : p.identificationCode;
}

/**
 * 日历 · 患者: an optional patient of the study, searched by code through the patient list (GET-as-POST
 * /api/v3/business/subjectRecord/list, under the caller's own rights). The event's current patient is offered
 * even when the first page does not hold it.
 */
export function PatientSelect({
  studyId,
  current,
  value,
  onChange,
}: {
  studyId: number;
  current: CalendarEventSubject | null;
  value?: number | null;
  onChange?: (value: number | null) => void;
}) {
  const [keyword, setKeyword] = useState('');
  const patients = useQuery({
    queryKey: queryKeys.subjectRecord.picker(studyId, keyword),
    queryFn: () =>
      subjectRecordApi
        .list({
          studyId,
          pageNum: 1,
          pageSize: PATIENT_OPTIONS_MAX,
          ...(keyword ? { identificationCode: keyword } : {}),
        })
        .then((res) => res.data.list),
    placeholderData: keepPreviousData,
  });
  const options = (patients.data ?? []).map((p) => ({ value: p.id, label: patientLabel(p) }));
  if (current && !options.some((o) => o.value === current.subjectId)) {
    options.unshift({ value: current.subjectId, label: patientLabel(current) });
  }
  return (
    <Select
      showSearch
      allowClear
      value={value ?? undefined}
      onChange={(v: number | undefined) => onChange?.(v ?? null)}
      filterOption={false}
      onSearch={(text) => setKeyword(text.trim())}
      onClear={() => setKeyword('')}
      loading={patients.isFetching}
      placeholder={C.patientPlaceholder}
      options={options}
      aria-label={C.fieldPatient}
    />
  );
}
