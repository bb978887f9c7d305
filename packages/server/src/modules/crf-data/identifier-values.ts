import { eq } from 'drizzle-orm';
import {
  holdsIdentifierMask,
  IDENTIFIER_MASK,
  identifierItemsOf,
  maskIdentifierItems,
  restoreIdentifierItems,
  type IdentifierItems,
} from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { crfs } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { definitionsOf, versionKey } from '../study/crf-definitions.js';

/**
 * The server's side of core's identifier items (crf/identifier-items.ts): which items of a form are identifiers
 * for its records, the values as a caller reads them, and the save's handling of masks sent back.
 */

/**
 * The identifier items of a form's records entered under `versions`: flagged in one of those versions or in the
 * form's current one (given, or read), so that flagging an item later, or dropping it from the form, never
 * unmasks what older records hold.
 */
export async function formIdentifiers(
  db: Db,
  crfId: number,
  versions: Iterable<number>,
  currentVersion?: number,
): Promise<IdentifierItems> {
  let current = currentVersion;
  if (current === undefined) {
    const [row] = await db.select({ version: crfs.currentVersion }).from(crfs).where(eq(crfs.id, crfId));
    current = row?.version;
  }
  const wanted = [...new Set([...versions, ...(current === undefined ? [] : [current])])];
  const found = await definitionsOf(
    db,
    wanted.map((version) => ({ crfId, version })),
  );
  return identifierItemsOf(...wanted.flatMap((v) => found.get(versionKey(crfId, v)) ?? []));
}

/** A record's values as the caller reads them: identifiers masked without 查看患者身份信息. */
export function valuesFor<T extends Readonly<Record<string, unknown>>>(
  access: StudyAccess,
  ids: IdentifierItems,
  values: T,
): T {
  return seesIdentifiers(access) ? values : maskIdentifierItems(ids, values);
}

/**
 * The values a save judges: masks sent back replaced by what is stored (core restoreIdentifierItems). Refused: a
 * change to a stored identifier by a saver without the permission (403), a masked row that was edited (409: it
 * can no longer be told which stored row it is), and a mask anywhere else (400: the mask is never stored).
 */
export function identifiersForSave(
  ids: IdentifierItems,
  sent: Record<string, unknown>,
  stored: Readonly<Record<string, unknown>>,
  mayChange: boolean,
): Record<string, unknown> {
  const restored = restoreIdentifierItems(ids, sent, stored, mayChange);
  if (restored.changed.length > 0) {
    throw new AppError(403, 'crf.identifier_forbidden', '无权修改已填写的身份标识字段（需要“查看患者身份信息”权限）', {
      items: restored.changed,
    });
  }
  if (restored.unmatched.length > 0) {
    throw new AppError(409, 'crf.identifier_row_changed', '含隐藏身份标识的行已被修改，请刷新后重试', {
      items: restored.unmatched,
    });
  }
  const left = holdsIdentifierMask(restored.values);
  if (left.length > 0) {
    throw AppError.badRequest('crf.identifier_mask', `“${IDENTIFIER_MASK}”代表隐藏的身份标识，不能作为填写的值`, {
      items: left,
    });
  }
  return restored.values;
}

/** The save's conflict answer (crf-data.service `stale`) carrying the current values as the caller reads them. */
export async function conflictFor(
  db: Db,
  access: StudyAccess,
  conflict: AppError,
  record: { crfId: number; crfVersion: number },
): Promise<AppError> {
  const data = conflict.data as { current?: { values?: Record<string, unknown> } } | null;
  if (seesIdentifiers(access) || !data?.current?.values) return conflict;
  const ids = await formIdentifiers(db, record.crfId, [record.crfVersion]);
  data.current.values = maskIdentifierItems(ids, data.current.values);
  return conflict;
}
