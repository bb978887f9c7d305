import { and, inArray, isNull, notInArray, or, type SQL } from 'drizzle-orm';
import { auditReadKey, unreadableAuditActions } from '@ecrf/core';
import { auditEvents } from '../../db/schema/index.js';
import { canViewCrf, hasStudyPermission, viewableCrfIds, type StudyAccess } from '../../shared/study-access.js';

/**
 * The trail's reading rule, in SQL so that a page's total counts only what the caller reads: a row needs the key
 * of what it records (core's AUDIT_READ_BUTTON: medical records, consultations) and, when it carries a CRF, that
 * CRF's view key (the form page's rule). Undefined for a caller who reads every row.
 */
export function readableAuditRowsOf(access: StudyAccess): SQL | undefined {
  const hidden = unreadableAuditActions((key) => hasStudyPermission(access, key));
  const viewable = viewableCrfIds(access);
  return and(
    hidden.length > 0 ? notInArray(auditEvents.action, hidden) : undefined,
    viewable === null
      ? undefined
      : viewable.length > 0
        ? or(isNull(auditEvents.crfId), inArray(auditEvents.crfId, viewable))
        : isNull(auditEvents.crfId),
  );
}

/** The same rule for one row already read. */
export function mayReadAuditRow(access: StudyAccess, row: { action: string; crfId: number | null }): boolean {
  const key = auditReadKey(row.action);
  return canViewCrf(access, row.crfId) && (key === null || hasStudyPermission(access, key));
}
