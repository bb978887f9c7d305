import crypto from 'node:crypto';
import { and, asc, count, desc, eq, ilike, inArray, max } from 'drizzle-orm';
import { countValueItems, lintDefinition, type CrfDefinition } from '@ecrf/core';
import {
  createExcelTemplate,
  exportExcel,
  exportJson,
  exportOdm,
  exportRedcapDictionary,
  formatImportIssue,
  importExcel,
  importJson,
  importOdm,
  importRedcapDictionary,
  type ImportResult,
} from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import type { Tx } from '../../db/client.js';
import { crfDataRecords, crfStageCrfs, crfVersions, crfs, studyDiseases, users } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../http/auth.js';
import type { PageRequest } from '../../http/paging.js';
import { canonicalJson } from '../audit/audit-chain.js';
import { audit, type AuditEntry } from '../capture/audit.service.js';
import { grantNewCrfToFullRoles } from './staff.service.js';

export type CrfSource = 'json' | 'excel' | 'redcap' | 'odm';

export interface UploadedFile {
  fileName: string;
  data: Buffer;
}

const notFound = () => AppError.notFound('crf.not_found', 'CRF不存在');

/**
 * A text upload's characters: UTF-8 when the bytes are valid UTF-8, otherwise GB18030 (a superset of
 * GBK), which is what Excel writes for a CSV on a Chinese Windows. Which one was used is reported.
 */
export function decodeUpload(data: Buffer): { text: string; encoding: 'utf-8' | 'gb18030' } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(data).replace(/^\uFEFF/, ''), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('gb18030').decode(data), encoding: 'gb18030' };
  }
}

/** Reads a file by its content's format, whatever the name claims. */
export async function importFile(file: UploadedFile): Promise<{ source: CrfSource; result: ImportResult }> {
  const head = file.data.subarray(0, 4);
  const isZip = head[0] === 0x50 && head[1] === 0x4b;
  if (isZip) return { source: 'excel', result: await importExcel(file.data) };
  const { text, encoding } = decodeUpload(file.data);
  const withEncoding = (result: ImportResult): ImportResult =>
    encoding === 'utf-8'
      ? result
      : {
          ...result,
          issues: [{ severity: 'warning', message: '文件不是 UTF-8 编码，已按 GBK/GB18030 读取' }, ...result.issues],
        };
  const start = text.trimStart();
  if (start.startsWith('{') || start.startsWith('[')) return { source: 'json', result: withEncoding(importJson(text)) };
  if (start.startsWith('<')) return { source: 'odm', result: withEncoding(importOdm(text)) };
  if (/\.csv$/i.test(file.fileName) || /^"?(variable|Variable \/ Field Name)/i.test(start)) {
    return { source: 'redcap', result: withEncoding(importRedcapDictionary(text)) };
  }
  throw AppError.badRequest(
    'crf.unknown_format',
    '不支持的文件格式：请上传 JSON、Excel（.xlsx）、REDCap 数据字典（.csv）或 ODM（.xml）',
  );
}

function refuse(result: ImportResult): never {
  const errors = result.issues
    .filter((i) => i.severity === 'error')
    .map((i) => ({ path: [i.form, i.field].filter(Boolean).join('.') || '', message: formatImportIssue(i) }));
  throw AppError.badRequest('crf.invalid', 'CRF定义有误，未导入', { errors });
}

/**
 * Stores every form of an accepted import in one transaction: a title new to the study
 * becomes a CRF at version 1, a known title gets its next version.
 */
export async function storeDefinitions(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  source: CrfSource,
  definitions: CrfDefinition[],
) {
  return ctx.db.transaction(async (tx) => {
    const stored: Array<{ id: number; title: string; version: number }> = [];
    const audited: AuditEntry[] = [];
    for (const definition of definitions) {
      const one = await storeOne(tx, ctx, user, studyId, source, definition);
      stored.push(one);
      // The definition's hash pins exactly which form version data will be captured with.
      const definitionSha256 = crypto
        .createHash('sha256')
        .update(canonicalJson({ ...definition, id: one.id }))
        .digest('hex');
      audited.push({
        studyId,
        crfId: one.id,
        crfVersion: one.version,
        action: 'study.crf.upload',
        itemName: one.title,
        newValue: { title: one.title, version: one.version, source, definitionSha256 },
      });
    }
    await audit(tx, user, ctx.clock(), audited);
    return stored;
  });
}

async function storeOne(
  tx: Tx,
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  source: CrfSource,
  definition: CrfDefinition,
) {
  const [existing] = await tx
    .select()
    .from(crfs)
    .where(and(eq(crfs.studyId, studyId), eq(crfs.title, definition.title)))
    .for('update');
  let crfId: number;
  let version: number;
  if (existing) {
    crfId = existing.id;
    version = existing.currentVersion + 1;
    await tx.update(crfs).set({ currentVersion: version, updatedAt: ctx.clock() }).where(eq(crfs.id, crfId));
  } else {
    const previous = (await tx.select({ id: crfs.id }).from(crfs).where(eq(crfs.studyId, studyId))).map((c) => c.id);
    const [row] = await tx
      .insert(crfs)
      .values({ studyId, title: definition.title, currentVersion: 1, createdBy: user.userId })
      .returning({ id: crfs.id });
    crfId = row!.id;
    version = 1;
    await grantNewCrfToFullRoles(tx, studyId, crfId, previous);
  }
  await tx.insert(crfVersions).values({
    crfId,
    studyId,
    version,
    definition: { ...definition, id: crfId },
    source,
    itemCount: countValueItems(definition.children),
    createdBy: user.userId,
  });
  return { id: crfId, title: definition.title, version };
}

export async function uploadFile(ctx: AppContext, user: CurrentUser, studyId: number, file: UploadedFile) {
  const { source, result } = await importFile(file);
  if (!result.ok || result.definitions.length === 0) refuse(result);
  const stored = await storeDefinitions(ctx, user, studyId, source, result.definitions);
  return {
    crfs: stored,
    warnings: result.issues
      .filter((i) => i.severity === 'warning')
      .map((i) => ({ path: [i.form, i.field].filter(Boolean).join('.'), message: formatImportIssue(i) })),
    notes: [] as string[],
  };
}

export async function uploadDefinition(ctx: AppContext, user: CurrentUser, studyId: number, definition: unknown) {
  const lint = lintDefinition(definition);
  if (!lint.ok || !lint.definition) {
    throw AppError.badRequest('crf.invalid', 'CRF定义有误，未导入', {
      errors: lint.errors.map((e) => ({ path: e.path, message: e.message })),
    });
  }
  const stored = await storeDefinitions(ctx, user, studyId, 'json', [lint.definition]);
  return {
    crfs: stored,
    warnings: lint.warnings.map((w) => ({ path: w.path, message: w.message })),
    notes: [] as string[],
  };
}

/** Whether data was ever entered with a CRF (deleted records count: their history refers to it). */
async function crfHasData(ctx: AppContext, crfId: number): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: crfDataRecords.id })
    .from(crfDataRecords)
    .where(eq(crfDataRecords.crfId, crfId))
    .limit(1);
  return Boolean(row);
}

export async function listCrfs(ctx: AppContext, studyId: number, filter: { title?: string }, page: PageRequest) {
  const where = and(eq(crfs.studyId, studyId), filter.title ? ilike(crfs.title, `%${filter.title}%`) : undefined);
  const [{ total }] = (await ctx.db.select({ total: count() }).from(crfs).where(where)) as [{ total: number }];
  const rows = await ctx.db
    .select({
      id: crfs.id,
      studyId: crfs.studyId,
      title: crfs.title,
      version: crfs.currentVersion,
      creater: users.name,
      createTime: crfs.createdAt,
      updateTime: crfs.updatedAt,
    })
    .from(crfs)
    .leftJoin(users, eq(users.userId, crfs.createdBy))
    .where(where)
    .orderBy(desc(crfs.updatedAt), desc(crfs.id))
    .limit(page.limit)
    .offset(page.offset);
  if (rows.length === 0) return { list: [], total: Number(total) };
  const versions = await ctx.db
    .select({
      crfId: crfVersions.crfId,
      version: crfVersions.version,
      source: crfVersions.source,
      itemCount: crfVersions.itemCount,
    })
    .from(crfVersions)
    .where(
      inArray(
        crfVersions.crfId,
        rows.map((r) => r.id),
      ),
    );
  const list = await Promise.all(
    rows.map(async (r) => {
      const mine = versions.filter((v) => v.crfId === r.id);
      const current = mine.find((v) => v.version === r.version);
      return {
        ...r,
        versionCount: mine.length,
        itemCount: current?.itemCount ?? 0,
        source: current?.source ?? 'json',
        hasData: await crfHasData(ctx, r.id),
      };
    }),
  );
  return { list, total: Number(total) };
}

export async function allCrfs(ctx: AppContext, studyId: number) {
  return ctx.db
    .select({ id: crfs.id, title: crfs.title, version: crfs.currentVersion })
    .from(crfs)
    .where(eq(crfs.studyId, studyId))
    .orderBy(asc(crfs.id));
}

export async function studyOfCrf(ctx: AppContext, crfId: number) {
  const [row] = await ctx.db.select({ studyId: crfs.studyId }).from(crfs).where(eq(crfs.id, crfId));
  return row?.studyId;
}

export async function getCrf(ctx: AppContext, crfId: number, version?: number) {
  const [crf] = await ctx.db.select().from(crfs).where(eq(crfs.id, crfId));
  if (!crf) throw notFound();
  const versions = await ctx.db
    .select({
      version: crfVersions.version,
      source: crfVersions.source,
      creater: users.name,
      createTime: crfVersions.createdAt,
      definition: crfVersions.definition,
    })
    .from(crfVersions)
    .leftJoin(users, eq(users.userId, crfVersions.createdBy))
    .where(eq(crfVersions.crfId, crfId))
    .orderBy(desc(crfVersions.version));
  const wanted = versions.find((v) => v.version === (version ?? crf.currentVersion));
  if (!wanted) throw AppError.notFound('crf.version_not_found', 'CRF版本不存在');
  return {
    id: crf.id,
    studyId: crf.studyId,
    title: crf.title,
    version: wanted.version,
    definition: wanted.definition as CrfDefinition,
    versions: versions.map(({ definition: _d, ...v }) => v),
  };
}

export async function deleteCrf(ctx: AppContext, user: CurrentUser, studyId: number, crfId: number) {
  const [crf] = await ctx.db
    .select()
    .from(crfs)
    .where(and(eq(crfs.id, crfId), eq(crfs.studyId, studyId)));
  if (!crf) throw notFound();
  if (await crfHasData(ctx, crfId)) throw AppError.conflict('crf.has_data', 'CRF已有数据，不能删除');
  await ctx.db.transaction(async (tx) => {
    await tx.delete(crfStageCrfs).where(eq(crfStageCrfs.crfId, crfId));
    const diseases = await tx.select().from(studyDiseases).where(eq(studyDiseases.studyId, studyId));
    for (const d of diseases) {
      if (d.crfIds.includes(crfId)) {
        await tx
          .update(studyDiseases)
          .set({ crfIds: d.crfIds.filter((id) => id !== crfId) })
          .where(eq(studyDiseases.id, d.id));
      }
    }
    await tx.delete(crfVersions).where(eq(crfVersions.crfId, crfId));
    await tx.delete(crfs).where(eq(crfs.id, crfId));
    await audit(tx, user, ctx.clock(), [
      {
        studyId,
        crfId,
        crfVersion: crf.currentVersion,
        action: 'study.crf.delete',
        itemName: crf.title,
        oldValue: { title: crf.title, currentVersion: crf.currentVersion },
      },
    ]);
  });
}

export type ExportFormat = 'json' | 'excel' | 'odm' | 'redcap';

export async function exportCrf(ctx: AppContext, crfId: number, version: number | undefined, format: ExportFormat) {
  const crf = await getCrf(ctx, crfId, version);
  const base = `${crf.title}-v${crf.version}`;
  switch (format) {
    case 'json':
      return {
        fileName: `${base}.json`,
        type: 'application/json; charset=utf-8',
        data: Buffer.from(exportJson(crf.definition)),
      };
    case 'excel':
      return {
        fileName: `${base}.xlsx`,
        type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        data: Buffer.from(await exportExcel([crf.definition])),
      };
    case 'odm':
      return {
        fileName: `${base}.xml`,
        type: 'application/xml; charset=utf-8',
        data: Buffer.from(exportOdm([crf.definition])),
      };
    case 'redcap':
      // With a byte-order mark, so Excel on a Chinese Windows opens the Chinese labels as UTF-8.
      return {
        fileName: `${base}.csv`,
        type: 'text/csv; charset=utf-8',
        data: Buffer.from(`\uFEFF${exportRedcapDictionary([crf.definition]).csv}`),
      };
  }
}

export async function excelTemplate() {
  return Buffer.from(await createExcelTemplate());
}

export async function latestVersionNumber(ctx: AppContext, crfId: number) {
  const [row] = await ctx.db
    .select({ v: max(crfVersions.version) })
    .from(crfVersions)
    .where(eq(crfVersions.crfId, crfId));
  return row?.v ?? 0;
}
