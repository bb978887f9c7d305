import { buttonKey, type StudyPermissionKey } from '@ecrf/core';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';

const SEES_ARMS = [buttonKey('business.randomization.unblinded'), buttonKey('business.randomization.unblindAll')];
const SEES_LIST_SHAPE = [...SEES_ARMS, buttonKey('business.randomization.config')];
const SEES_IDENTIFIERS = buttonKey('business.subject.identifiers');

type Row = { action: string; oldValue: unknown; newValue: unknown };

const holdsAny = (access: StudyAccess, keys: readonly StudyPermissionKey[]) =>
  keys.some((k) => hasStudyPermission(access, k));

function without(value: unknown, field: string): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value) || !(field in value)) return value;
  const { [field]: _hidden, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** A WeChat openId cut as the 公众号用户 list shows it. */
const cutOpenId = (value: unknown) => (typeof value === 'string' && value.length > 8 ? `${value.slice(0, 8)}…` : value);

/**
 * What a trail row may tell a reader beyond the row's own read rule (audit-read.ts), field by field. The rows are
 * append-only and chained, so they stay as written; the answer leaves out or cuts:
 * - `allocationSha256` of assignment rows written before blinded rows carried an HMAC: a plain SHA-256 over the
 *   arm, the scores and the kit code, which trying each arm code inverts (docs/randomization.md), unless the
 *   reader may see arms;
 * - `slots` of a randomization configuration row (strata × list length), which the configuration call hides
 *   with the block sizes from roles that neither configure nor see arms;
 * - a patient's WeChat openId (binding rows) to its first 8 characters without 查看患者身份信息.
 */
export function redactForCaller<T extends Row>(access: StudyAccess, row: T): T {
  switch (row.action) {
    case 'randomization.assign':
      return holdsAny(access, SEES_ARMS) ? row : { ...row, newValue: without(row.newValue, 'allocationSha256') };
    case 'randomization.config':
      return holdsAny(access, SEES_LIST_SHAPE) ? row : { ...row, newValue: without(row.newValue, 'slots') };
    case 'patient.bind':
    case 'patient.unbind':
      return hasStudyPermission(access, SEES_IDENTIFIERS)
        ? row
        : { ...row, oldValue: cutOpenId(row.oldValue), newValue: cutOpenId(row.newValue) };
    default:
      return row;
  }
}
