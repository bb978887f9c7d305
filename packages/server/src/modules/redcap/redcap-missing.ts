import type { MissingCode } from '@ecrf/core';

/**
 * 缺失原因 (issue 37) the REDCap way: a missing-data code stands in the field as its value, and the project lists its
 * codes in the project setting `missing_data_codes` as `ND, 未查 | NA, 不适用` (code, label; entries split by `|`).
 */
export const redcapMissingDataCodes = (codes: readonly MissingCode[]) =>
  codes.map((c) => `${c.code}, ${c.label}`).join(' | ');
