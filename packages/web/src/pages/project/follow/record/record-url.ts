import dayjs, { type Dayjs } from 'dayjs';
import { FOLLOW_STATE_CODES, isDateString } from '@ecrf/core';
import { positiveIdOf } from '../../../../utils/positive-id';

/** What 随访记录 can be opened filtered by (from 随访概览's counts). */
export interface RecordLinkFilter {
  state?: number;
  responsibleUserId?: number;
  startDate?: string;
  endDate?: string;
}

/** 随访记录's address filtered to what a count counts. */
export function recordsLink(studyId: number, filter: RecordLinkFilter): string {
  const params = new URLSearchParams();
  if (filter.state !== undefined) params.set('state', String(filter.state));
  if (filter.responsibleUserId !== undefined) params.set('responsibleUserId', String(filter.responsibleUserId));
  if (filter.startDate) params.set('startDate', filter.startDate);
  if (filter.endDate) params.set('endDate', filter.endDate);
  const query = params.toString();
  return `/project/${studyId}/follow/record${query ? `?${query}` : ''}`;
}

/**
 * The search form's first values from the address (a link from 随访概览); anything not understood is left out,
 * so a hand-typed address never sends a bad filter.
 */
export function searchValuesOf(search: string): Record<string, unknown> {
  const params = new URLSearchParams(search);
  const values: Record<string, unknown> = {};
  const state = Number(params.get('state'));
  if (params.get('state') !== null && FOLLOW_STATE_CODES.includes(state as never)) values.state = state;
  const person = positiveIdOf(params.get('responsibleUserId'));
  if (person !== null) values.responsibleUserId = person;
  const day = (name: string): Dayjs | null => {
    const v = params.get(name);
    return v && isDateString(v) ? dayjs(v) : null;
  };
  const from = day('startDate');
  const to = day('endDate');
  if (from || to) values.dateRange = [from, to];
  return values;
}
