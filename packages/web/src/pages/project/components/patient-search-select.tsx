import { useState } from 'react';
import { keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { Select, type SelectProps } from 'antd';
import { subjectRecordApi } from '../../../api/subject.api';

interface PatientSearchSelectProps extends Pick<SelectProps<number>, 'id' | 'value' | 'onChange'> {
  studyId: number;
  /** The cache key of the patients offered for a typed code (each page keeps its own). */
  queryKey: (code: string) => QueryKey;
  placeholder: string;
  /** Keeps the patients shown while those of a newly typed code load. */
  keepPrevious?: boolean;
}

/**
 * A form's patient: the study's first 20 patients, or those whose code starts as typed, offered as
 * "code name". Its value (the patient's id) and changes come from the form item around it.
 */
export function PatientSearchSelect({
  studyId,
  queryKey,
  placeholder,
  keepPrevious = false,
  ...field
}: PatientSearchSelectProps) {
  const [code, setCode] = useState('');
  const patients = useQuery({
    queryKey: queryKey(code),
    ...(keepPrevious && { placeholderData: keepPreviousData }),
    queryFn: () =>
      subjectRecordApi
        .list({ studyId, pageNum: 1, pageSize: 20, ...(code && { identificationCode: code }) })
        .then((res) => res.data.list),
  });
  return (
    <Select
      {...field}
      showSearch
      filterOption={false}
      placeholder={placeholder}
      onSearch={(text) => setCode(text.trim())}
      loading={patients.isFetching}
      options={(patients.data ?? []).map((p) => ({
        value: p.id,
        label: `${p.identificationCode} ${p.subjectName}`,
      }))}
    />
  );
}
