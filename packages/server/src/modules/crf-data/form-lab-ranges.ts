import {
  ageInYears,
  genderFromPatient,
  rangesForForm,
  sampleDateOf,
  todayString,
  type CrfDefinition,
  type RangeOverride,
  type UsedRange,
} from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { siteRanges } from '../lab-ranges/lab-ranges.service.js';

/**
 * 参考范围 (issue 37) for one save: the patient's site's ranges at the sample date, as overrides for the engine and
 * the ranges used to store in crf_data_records.lab_ranges. A patient without a site keeps the items' own ranges.
 */
export async function labRangesForSave(
  tx: Db,
  p: {
    studyId: number;
    siteId: number | null;
    gender: number | null;
    birth: string | null;
    definition: CrfDefinition;
    values: Readonly<Record<string, unknown>>;
    recordCreatedAt: Date | null;
    now: Date;
    timeZone: string;
  },
): Promise<{ overrides: Record<string, RangeOverride>; used: Record<string, UsedRange> }> {
  const today = todayString(p.now, p.timeZone);
  const recordDate = p.recordCreatedAt ? todayString(p.recordCreatedAt, p.timeZone) : null;
  const sampleDate = sampleDateOf(p.definition, p.values, { recordDate, today });
  return rangesForForm(p.definition, await siteRanges(tx, p.studyId, p.siteId), {
    gender: genderFromPatient(p.gender),
    ageYears: ageInYears(p.birth, sampleDate),
    sampleDate,
  });
}
