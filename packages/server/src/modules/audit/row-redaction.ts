import { buttonKey } from '@ecrf/core';
import { hasStudyPermission, type StudyAccess } from '../../shared/study-access.js';

const SEES_ARMS = [buttonKey('business.randomization.unblinded'), buttonKey('business.randomization.unblindAll')];

/**
 * Assignment rows written before blinded rows carried an HMAC hold `allocationSha256`, a plain SHA-256 over the
 * arm, the scores and the kit code: trying each arm code recovers the arm. The rows themselves are append-only
 * and stay in the chain as written; a reader who may not see arms gets them without that field.
 */
export function withoutLegacyAllocationHash<T extends { action: string; newValue: unknown }>(
  access: StudyAccess,
  row: T,
): T {
  if (row.action !== 'randomization.assign') return row;
  const value = row.newValue;
  if (!value || typeof value !== 'object' || !('allocationSha256' in value)) return row;
  if (SEES_ARMS.some((key) => hasStudyPermission(access, key))) return row;
  const { allocationSha256: _hidden, ...rest } = value as Record<string, unknown>;
  return { ...row, newValue: rest };
}
