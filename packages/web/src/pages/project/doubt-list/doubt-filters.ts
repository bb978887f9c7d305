import type { Dayjs } from 'dayjs';
import type { DoubtFilter } from '../../../api/doubt.api';
import { compact } from '../../../utils/compact';
import { DATE_FORMAT } from '../../../utils/format-date';

/** What the filter bar of 质疑列表 holds. */
export interface DoubtFilterValues {
  identificationCode?: string;
  optionType?: number;
  doubtType?: number;
  userName?: string;
  range?: [Dayjs | null, Dayjs | null] | null;
}

/** QRY-22: the filter bar as the query parameters of GET /api/business/doubts; empty fields are left out. */
export function toDoubtFilter(values: DoubtFilterValues): DoubtFilter {
  const [begin, end] = values.range ?? [null, null];
  return compact({
    identificationCode: values.identificationCode?.trim(),
    optionType: values.optionType,
    doubtType: values.doubtType,
    userName: values.userName?.trim(),
    beginDate: begin ? begin.format(DATE_FORMAT) : undefined,
    endDate: end ? end.format(DATE_FORMAT) : undefined,
  });
}

/** 定位: the casebook page opened on the query's form and record. */
export function locateUrl(doubt: { subjectRecordId: number; crfId: number; crfDataRecordId: number }): string {
  return `/crf/${doubt.subjectRecordId}?crfId=${doubt.crfId}&crfDataRecordId=${doubt.crfDataRecordId}`;
}
