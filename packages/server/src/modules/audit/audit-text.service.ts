import { and, asc, eq, inArray, like, or } from 'drizzle-orm';
import {
  DEFAULT_BASE_CONFIG,
  describeAuditRow,
  fileValuesOf,
  identifierItemsOf,
  maskIdentifierAuditRow,
  type AuditRowText,
  type CrfNode,
} from '@ecrf/core';
import type { Db } from '../../db/client.js';
import {
  auditEvents,
  crfDataRecords,
  crfs,
  departments,
  storedFiles,
  studies,
  studyDiseases,
  subjectRecords,
  subjects,
} from '../../db/schema/index.js';
import { definitionsOf, nodesOf, versionKey } from '../study/crf-definitions.js';
import { storedFileOf, type StoredFileRef } from '../files/stored-value.js';

/** An audit row as the trail reads it from the table. */
export interface RawAuditRow {
  id: number;
  action: string;
  subjectRecordId: number | null;
  crfDataRecordId: number | null;
  crfId: number | null;
  crfVersion: number | null;
  itemName: string | null;
  oldValue: unknown;
  newValue: unknown;
  reason: string | null;
  userName: string;
  createTime: Date;
}

/**
 * A stored file a value refers to: its key and the name it was uploaded with. An object of the external mode
 * carries its address (`url`): it is read there, not through the download call.
 */
export interface FileLink {
  fileKey: string;
  fileName: string;
  url?: string;
}

export type ReadableAuditRow<T extends RawAuditRow> = T &
  AuditRowText & {
    crfTitle: string | null;
    oldFiles: FileLink[];
    newFiles: FileLink[];
    /** The patient's study code (a pseudonym), when asked for. */
    identificationCode?: string | null;
  };

/** The stored files among an upload item's file references, with the reference as written (other URLs are not ours). */
export function fileRefsOf(node: CrfNode | undefined, value: unknown): Array<StoredFileRef & { raw: string }> {
  return fileValuesOf(node, value).flatMap((raw) => {
    const ref = storedFileOf(raw);
    return ref ? [{ ...ref, raw }] : [];
  });
}

/** What core's fileLabel looks a stored file's name up by: the file key, or an object address as the value holds it. */
const nameKeyOf = (ref: StoredFileRef & { raw: string }) => (ref.objectKey === null ? ref.fileKey : ref.raw);

/** The name keys (fileLabel's) of an upload item's stored files: keys, and object addresses (files/stored-value.ts). */
export function fileKeysOf(node: CrfNode | undefined, value: unknown): string[] {
  return fileRefsOf(node, value).map(nameKeyOf);
}

/** Original names of the study's stored files by their name keys (fileKeysOf), in one statement. */
export async function fileNamesOf(db: Db, studyId: number, keys: Iterable<string>): Promise<Map<string, string>> {
  const wanted = [...new Set(keys)].flatMap((key) => {
    const ref = storedFileOf(key);
    return ref ? [[key, ref.fileKey] as const] : [];
  });
  if (wanted.length === 0) return new Map();
  const rows = await db
    .select({ fileKey: storedFiles.fileKey, fileName: storedFiles.fileName })
    .from(storedFiles)
    .where(
      and(
        eq(storedFiles.studyId, studyId),
        inArray(storedFiles.fileKey, [...new Set(wanted.map(([, fileKey]) => fileKey))]),
      ),
    );
  const byKey = new Map(rows.map((r) => [r.fileKey, r.fileName]));
  return new Map(wanted.flatMap(([key, fileKey]) => (byKey.has(fileKey) ? [[key, byKey.get(fileKey)!] as const] : [])));
}

/** An upload item's stored files as links under their original names (names from fileNamesOf). */
export function fileLinksOf(node: CrfNode | undefined, value: unknown, fileNames: ReadonlyMap<string, string>) {
  return fileRefsOf(node, value).map((ref): FileLink => {
    const fileName = fileNames.get(nameKeyOf(ref));
    if (ref.objectKey === null) return { fileKey: ref.fileKey, fileName: fileName ?? ref.fileKey };
    return { fileKey: ref.fileKey, fileName: fileName ?? ref.objectKey.split('/').pop()!, url: ref.value };
  });
}

const SIDE_SUFFIXES = ['_unit', '_addition'] as const;

/**
 * The values kept beside items (chosen unit, addition text) as they were at a moment, rebuilt from
 * the trail: a value is read in the unit of its time, not in today's. One statement for all records.
 */
export async function sideValuesOverTime(db: Db, recordIds: Iterable<number>) {
  const ids = [...new Set(recordIds)];
  const byRecord = new Map<number, Array<{ itemName: string; value: unknown; at: number }>>();
  if (ids.length > 0) {
    const rows = await db
      .select({
        crfDataRecordId: auditEvents.crfDataRecordId,
        itemName: auditEvents.itemName,
        value: auditEvents.newValue,
        at: auditEvents.createdAt,
      })
      .from(auditEvents)
      .where(
        and(
          inArray(auditEvents.crfDataRecordId, ids),
          eq(auditEvents.action, 'item.update'),
          or(...SIDE_SUFFIXES.map((suffix) => like(auditEvents.itemName, `%\\${suffix}`))),
        ),
      )
      .orderBy(asc(auditEvents.id));
    for (const row of rows) {
      const list = byRecord.get(row.crfDataRecordId!) ?? [];
      list.push({ itemName: row.itemName!, value: row.value, at: row.at.getTime() });
      byRecord.set(row.crfDataRecordId!, list);
    }
  }
  /** The side values of a record at `at`: including the changes saved at that very moment, or just before them. */
  return (recordId: number | null, at: Date, inclusive: boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (recordId === null) return out;
    const t = at.getTime();
    for (const entry of byRecord.get(recordId) ?? []) {
      if (entry.at < t || (inclusive && entry.at === t)) out[entry.itemName] = entry.value;
    }
    return out;
  };
}

/** Titles and versions of the study's CRFs named by the rows, and the version each record was entered with. */
async function formsOf(db: Db, rows: ReadonlyArray<RawAuditRow>) {
  const crfIds = [...new Set(rows.flatMap((r) => (r.crfId === null ? [] : [r.crfId])))];
  const forms = crfIds.length
    ? await db
        .select({ id: crfs.id, title: crfs.title, currentVersion: crfs.currentVersion })
        .from(crfs)
        .where(inArray(crfs.id, crfIds))
    : [];
  const recordIds = [
    ...new Set(rows.flatMap((r) => (r.crfVersion === null && r.crfDataRecordId !== null ? [r.crfDataRecordId] : []))),
  ];
  const records = recordIds.length
    ? await db
        .select({ id: crfDataRecords.id, crfVersion: crfDataRecords.crfVersion })
        .from(crfDataRecords)
        .where(inArray(crfDataRecords.id, recordIds))
    : [];
  const formById = new Map(forms.map((f) => [f.id, f]));
  const recordVersion = new Map(records.map((r) => [r.id, r.crfVersion]));
  const versionOf = (row: RawAuditRow) =>
    row.crfId === null
      ? null
      : (row.crfVersion ??
        (row.crfDataRecordId === null ? undefined : recordVersion.get(row.crfDataRecordId)) ??
        formById.get(row.crfId)?.currentVersion ??
        null);
  // The current version too: an item it flags as an identifier is masked in rows written under older ones.
  const currentOf = (row: RawAuditRow) => (row.crfId === null ? undefined : formById.get(row.crfId)?.currentVersion);
  const wanted = rows.flatMap((row) => {
    const version = versionOf(row);
    return row.crfId === null || version === null
      ? []
      : [version, currentOf(row) ?? version].map((v) => ({ crfId: row.crfId!, version: v }));
  });
  const definitions = await definitionsOf(db, wanted);
  const nodesOfRow = (row: RawAuditRow) => {
    const version = versionOf(row);
    if (row.crfId === null || version === null) return undefined;
    const definition = definitions.get(versionKey(row.crfId, version));
    return definition ? nodesOf(definition) : undefined;
  };
  const identifiersOfRow = (row: RawAuditRow) => {
    const version = versionOf(row);
    if (row.crfId === null || version === null) return identifierItemsOf();
    const own = [version, currentOf(row) ?? version].flatMap((v) => definitions.get(versionKey(row.crfId!, v)) ?? []);
    return identifierItemsOf(...own);
  };
  return {
    titleOf: (crfId: number | null) => (crfId === null ? null : (formById.get(crfId)?.title ?? null)),
    nodesOfRow,
    identifiersOfRow,
  };
}

/** A site lock's row (中心锁定): it names its site by the department's name. */
const isSiteLock = (r: RawAuditRow) =>
  (r.action === 'lock.set' || r.action === 'lock.release') &&
  (r.newValue as { scope?: unknown } | null)?.scope === 'site';

/** The study's patient field labels, disease names and the names of the sites (departments) the rows name. */
async function patientWordsOf(db: Db, studyId: number, rows: ReadonlyArray<RawAuditRow>) {
  const [study] = await db.select({ baseConfig: studies.baseConfig }).from(studies).where(eq(studies.studyId, studyId));
  const diseases = await db
    .select({ code: studyDiseases.diseaseCode, name: studyDiseases.diseaseName })
    .from(studyDiseases)
    .where(eq(studyDiseases.studyId, studyId));
  const fieldLabels: Record<string, string> = Object.fromEntries(DEFAULT_BASE_CONFIG.map((f) => [f.name, f.header]));
  for (const f of study?.baseConfig ?? []) if (f.header) fieldLabels[f.name] = f.header;
  const siteIds = [
    ...new Set(
      rows
        .filter((r) => r.action === 'subject.site' || (r.action === 'subject.update' && r.itemName === 'deptId'))
        .flatMap((r) => [r.oldValue, r.newValue])
        .concat(rows.filter(isSiteLock).map((r) => (r.newValue as { targetId?: unknown }).targetId))
        .map(Number)
        .filter((id) => Number.isSafeInteger(id) && id > 0),
    ),
  ];
  const sites = siteIds.length
    ? await db
        .select({ deptId: departments.deptId, deptName: departments.deptName })
        .from(departments)
        .where(inArray(departments.deptId, siteIds))
    : [];
  return {
    fieldLabels,
    diseaseNames: new Map(diseases.map((d) => [d.code, d.name])),
    siteNames: new Map(sites.map((d) => [d.deptId, d.deptName])),
  };
}

async function subjectCodesOf(db: Db, rows: ReadonlyArray<RawAuditRow>) {
  const ids = [...new Set(rows.flatMap((r) => (r.subjectRecordId === null ? [] : [r.subjectRecordId])))];
  if (ids.length === 0) return new Map<number, string>();
  const found = await db
    .select({ id: subjectRecords.id, code: subjects.identificationCode })
    .from(subjectRecords)
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .where(inArray(subjectRecords.id, ids));
  return new Map(found.map((r) => [r.id, r.code]));
}

/**
 * Audit rows in words (core's `describeAuditRow`, one rule for the page and the export): the item
 * title from the CRF version the row was written under, choice labels, units of the time, original
 * file names and the action's name. A fixed number of statements per page, whatever its size.
 */
export async function readableAuditRows<T extends RawAuditRow>(
  db: Db,
  studyId: number,
  rows: readonly T[],
  /** `identifiers` false: a reader without 查看患者身份信息 reads identifier items masked (core identifier-items). */
  options: { subjectCodes?: boolean; identifiers?: boolean } = {},
): Promise<Array<ReadableAuditRow<T>>> {
  if (rows.length === 0) return [];
  const forms = await formsOf(db, rows);
  // Masked before any value is put into words or file names.
  if (options.identifiers === false) rows = rows.map((row) => maskIdentifierAuditRow(forms.identifiersOfRow(row), row));
  const side = await sideValuesOverTime(
    db,
    rows.flatMap((r) => (r.action === 'item.update' && r.crfDataRecordId !== null ? [r.crfDataRecordId] : [])),
  );
  const keys: string[] = [];
  for (const row of rows) {
    const nodes = forms.nodesOfRow(row);
    if (!nodes) continue;
    if (row.action === 'item.update' && row.itemName) {
      const node = nodes.get(row.itemName);
      keys.push(...fileKeysOf(node, row.oldValue), ...fileKeysOf(node, row.newValue));
    } else if (row.action === 'crf.delete' && row.oldValue && typeof row.oldValue === 'object') {
      for (const [name, value] of Object.entries(row.oldValue)) keys.push(...fileKeysOf(nodes.get(name), value));
    }
  }
  const fileNames = await fileNamesOf(db, studyId, keys);
  const patient = rows.some((r) => r.action.startsWith('subject.') || isSiteLock(r))
    ? await patientWordsOf(db, studyId, rows)
    : undefined;
  const codes = options.subjectCodes ? await subjectCodesOf(db, rows) : undefined;
  const links = (node: CrfNode | undefined, value: unknown) => fileLinksOf(node, value, fileNames);
  return rows.map((row) => {
    const nodes = forms.nodesOfRow(row);
    const node = row.action === 'item.update' && row.itemName ? nodes?.get(row.itemName) : undefined;
    const text = describeAuditRow(row, {
      nodes,
      before: side(row.crfDataRecordId, row.createTime, false),
      after: side(row.crfDataRecordId, row.createTime, true),
      fileNames,
      ...patient,
    });
    return {
      ...row,
      ...text,
      crfTitle: forms.titleOf(row.crfId),
      oldFiles: links(node, row.oldValue),
      newFiles: links(node, row.newValue),
      ...(codes
        ? { identificationCode: row.subjectRecordId === null ? null : (codes.get(row.subjectRecordId) ?? null) }
        : {}),
    };
  });
}
