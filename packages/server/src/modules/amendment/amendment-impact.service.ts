import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import {
  buildImpactReport,
  diffDefinitions,
  FORM_STATE,
  formReferencesOf,
  genderFromPatient,
  isIdentifierKey,
  maskedValue,
  maskIdentifierValue,
  spineBandSetOf,
  todayString,
  type AmendmentRecord,
  type CrfDefinition,
  type ImpactFindingKind,
  type ImpactRecordRow,
  type ImpactSummaryView,
  type MigrationOptions,
  type PlannedChange,
  type RecordImpact,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { crfDataRecords, departments, studies, subjectRecords, subjects } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import { seesSite, type StudyAccess } from '../../shared/study-access.js';
import { otherFormValuesOf } from '../crf-data/linked-values.service.js';
import { formIdentifiers } from '../crf-data/identifier-values.js';
import { labRangesOfRecord, rangesOfSites, siteRowsOf } from '../crf-data/form-write-batch.js';
import { lockRefusals } from '../locks/lock-gate.js';
import { definitionOf, definitionsOf, versionKey } from '../study/crf-definitions.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

/**
 * The impact report of a form's new version over its live records (issue 36): every record of the form on an
 * older version (deleted records and casebooks aside) planned by core's engine (buildImpactReport), with what the
 * report needs beside the values: submitted, signed (a valid signature over the casebook), SDV-verified (any mark),
 * locked (the lock gate's answer, as the migration will find it). Records on versions older than the amendment's
 * own `from` are planned from their own version. The summary holds counts and item names only, never values.
 */

export interface ImpactScope {
  studyId: number;
  crfId: number;
  fromVersion: number;
  toVersion: number;
}

/** What the drill-down shows of a record beside its changes. */
export interface RecordFacts {
  id: number;
  subjectRecordId: number;
  identificationCode: string;
  siteId: number | null;
  siteName: string | null;
}

export interface Impact {
  summary: ImpactSummaryView;
  perRecord: RecordImpact[];
  facts: Map<number, RecordFacts>;
}

/** The engine's options for a study now: today, the zone and the clock, the spine bands. */
export async function migrationOptionsOf(
  db: Db,
  ctx: AppContext,
  scope: Pick<ImpactScope, 'studyId' | 'fromVersion' | 'toVersion'>,
): Promise<MigrationOptions> {
  const [study] = await db
    .select({ timeZone: studies.timeZone, spineBandSet: studies.spineBandSet })
    .from(studies)
    .where(eq(studies.studyId, scope.studyId));
  const now = ctx.clock();
  const timeZone = study?.timeZone ?? 'Asia/Shanghai';
  return {
    today: todayString(now, timeZone),
    timeZone,
    now,
    spineBandSet: spineBandSetOf(study?.spineBandSet),
    fromVersion: scope.fromVersion,
    toVersion: scope.toVersion,
  };
}

/** The form's live records on versions older than `toVersion`, with the facts the report and the drill-down need. */
async function liveRecords(db: Db, scope: ImpactScope) {
  return db
    .select({
      id: crfDataRecords.id,
      subjectRecordId: crfDataRecords.subjectRecordId,
      crfVersion: crfDataRecords.crfVersion,
      state: crfDataRecords.state,
      values: crfDataRecords.values,
      missing: crfDataRecords.missing,
      sdv: crfDataRecords.sdv,
      createdAt: crfDataRecords.createdAt,
      birth: subjects.birth,
      identificationCode: subjects.identificationCode,
      siteId: subjects.deptId,
      siteName: departments.deptName,
      gender: subjects.gender,
      signed: sql<boolean>`exists (select 1 from signatures g where g.study_id = ${crfDataRecords.studyId}
        and g.subject_record_id = ${crfDataRecords.subjectRecordId} and g.invalidated_at is null)`,
    })
    .from(crfDataRecords)
    .innerJoin(
      subjectRecords,
      and(eq(subjectRecords.id, crfDataRecords.subjectRecordId), isNull(subjectRecords.deletedAt)),
    )
    .innerJoin(subjects, eq(subjects.id, subjectRecords.subjectId))
    .leftJoin(departments, eq(departments.deptId, subjects.deptId))
    .where(
      and(
        eq(crfDataRecords.studyId, scope.studyId),
        eq(crfDataRecords.crfId, scope.crfId),
        isNull(crfDataRecords.deletedAt),
        lt(crfDataRecords.crfVersion, scope.toVersion),
      ),
    )
    .orderBy(asc(crfDataRecords.id));
}

type Finding = ImpactSummaryView['findings'][number];

/** The report's item lists in the contract's shape (a likely rename names both items). */
function diffOf(from: CrfDefinition, to: CrfDefinition): ImpactSummaryView['diff'] {
  const diff = diffDefinitions(from, to);
  return {
    added: diff.added.map((i) => ({ ...i })),
    removed: diff.removed.map((i) => ({ ...i })),
    renamed: diff.renamed.map((r) => ({ name: r.to, label: r.label, from: r.from, to: r.to })),
    retyped: diff.retyped.map((r) => ({ ...r })),
  };
}

/** The impact of moving the form's live records (on any version older than `toVersion`) to `toVersion`. */
export async function impactOf(ctx: AppContext, scope: ImpactScope, db: Db = ctx.db): Promise<Impact> {
  const to = await definitionOf(db, scope.crfId, scope.toVersion);
  const from = await definitionOf(db, scope.crfId, scope.fromVersion);
  const rows = await liveRecords(db, scope);
  const options = await migrationOptionsOf(db, ctx, scope);
  const lockOf = await lockRefusals(
    db,
    scope.studyId,
    rows.map((r) => ({ subjectRecordId: r.subjectRecordId, crfDataRecordId: r.id })),
  );
  const versions = [...new Set(rows.map((r) => r.crfVersion))];
  const definitions = await definitionsOf(
    db,
    versions.map((version) => ({ crfId: scope.crfId, version })),
  );
  const casebooks = [...new Set(rows.map((r) => r.subjectRecordId))];
  const forms = new Map<number, Record<string, Record<string, unknown>>>();
  for (const definition of [to, ...definitions.values()]) {
    if (formReferencesOf(definition).length === 0) continue;
    for (const [id, values] of await otherFormValuesOf(db, scope.studyId, casebooks, definition)) {
      forms.set(id, { ...forms.get(id), ...values });
    }
  }

  // 参考范围: ↑/↓ judged by the patient's site range, chosen as the migration writer chooses (form-lab-ranges.ts).
  const siteRanges = await rangesOfSites(
    db,
    scope.studyId,
    rows.map((r) => r.siteId),
  );

  const perRecord: RecordImpact[] = [];
  const findings = new Map<string, Finding>();
  const records = { total: 0, submitted: 0, signed: 0, sdvVerified: 0, locked: 0, changed: 0, unchanged: 0 };
  for (const version of versions) {
    const old = definitions.get(versionKey(scope.crfId, version));
    if (!old) throw AppError.notFound('crf.version_not_found', 'CRF版本不存在');
    const group: AmendmentRecord[] = rows
      .filter((r) => r.crfVersion === version)
      .map((r) => ({
        id: r.id,
        values: r.values,
        submitted: r.state === FORM_STATE.submitted,
        signed: Boolean(r.signed),
        sdvVerified: Object.keys(r.sdv ?? {}).length > 0,
        locked: lockOf({ subjectRecordId: r.subjectRecordId, crfDataRecordId: r.id }) !== null,
        gender: genderFromPatient(r.gender),
        forms: forms.get(r.subjectRecordId) ?? {},
        // 缺失原因: a marked item is judged as the save judges it (migrate-marks.ts).
        missing: r.missing,
        referenceRanges: labRangesOfRecord(siteRowsOf(siteRanges, r.siteId), {
          gender: r.gender,
          birth: r.birth,
          definition: to,
          values: r.values,
          recordCreatedAt: r.createdAt,
          now: options.now ?? ctx.clock(),
          timeZone: options.timeZone,
        }).overrides,
      }));
    const report = buildImpactReport(old, to, group, options);
    perRecord.push(...report.perRecord);
    for (const key of Object.keys(records) as Array<keyof typeof records>) records[key] += report.records[key];
    for (const f of report.findings) {
      const key = `${f.kind}\u0000${f.itemName}`;
      const seen = findings.get(key);
      if (seen) seen.count += f.count;
      else findings.set(key, { ...f });
    }
  }
  perRecord.sort((a, b) => a.recordId - b.recordId);
  return {
    summary: {
      crfId: scope.crfId,
      fromVersion: scope.fromVersion,
      toVersion: scope.toVersion,
      diff: diffOf(from, to),
      records,
      findings: [...findings.values()],
    },
    perRecord,
    facts: new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          subjectRecordId: r.subjectRecordId,
          identificationCode: r.identificationCode,
          siteId: r.siteId,
          siteName: r.siteName,
        },
      ]),
    ),
  };
}

export interface DrillDown {
  kind?: ImpactFindingKind;
  itemName?: string;
}

type Change = PlannedChange & { container?: string };

/**
 * The findings as rows, for the caller: records of the caller's sites only, identifier values masked without
 * 查看患者身份信息; filtered by kind and item when asked. Ordered by record, then as the engine found them.
 */
export async function impactRows(
  ctx: AppContext,
  access: StudyAccess,
  impact: Impact,
  filter: DrillDown,
): Promise<ImpactRecordRow[]> {
  const ids = seesIdentifiers(access)
    ? null
    : await formIdentifiers(ctx.db, impact.summary.crfId, [impact.summary.fromVersion, impact.summary.toVersion]);
  const shown = (change: Change, value: unknown) => {
    if (!ids) return value;
    return isIdentifierKey(ids, change.itemName, change.container)
      ? maskedValue(value)
      : maskIdentifierValue(ids, change.itemName, value);
  };
  const rows: ImpactRecordRow[] = [];
  for (const record of impact.perRecord) {
    const facts = impact.facts.get(record.recordId);
    if (!facts || !seesSite(access, facts.siteId)) continue;
    for (const change of record.changes as Change[]) {
      if (filter.kind && change.kind !== filter.kind) continue;
      if (filter.itemName && change.itemName !== filter.itemName) continue;
      rows.push({
        crfDataRecordId: record.recordId,
        subjectRecordId: facts.subjectRecordId,
        identificationCode: facts.identificationCode,
        siteName: facts.siteName,
        itemName: change.itemName,
        label: change.label,
        kind: change.kind,
        oldValue: shown(change, change.oldValue) ?? null,
        newValue: shown(change, change.newValue) ?? null,
        submitted: record.submitted,
        signed: record.signed,
        sdvVerified: record.sdvVerified,
        locked: record.locked,
      });
    }
  }
  return rows;
}
