import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import { maskName, type RandomizationConfig } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import {
  departments,
  randomizationConfigs,
  randomizationStrata,
  randomizations,
  randomizationUnblindings,
  subjects,
  users,
} from '../../db/schema/index.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { PageRequest } from '../../shared/paging.js';
import { inCallerSites, subjectInCallerSites } from '../../shared/patient-site.js';
import type { StudyAccess } from '../../shared/study-access.js';
import { audit } from '../audit/audit.service.js';
import { seesIdentifiers } from '../subjects/subject.service.js';
import { listSlots } from './randomization-config.service.js';
import {
  current,
  isTestStratum,
  listStratum,
  MAX_LIST_SLOTS,
  present,
  requireCurrent,
  seesArms,
  stratumLabels,
  studyInTest,
} from './randomization-shared.js';

// ---------------------------------------------------------------------------------------------------------------
// Results (随机结果, 随机统计)

async function configsOf(db: Db, studyId: number) {
  const rows = await db.select().from(randomizationConfigs).where(eq(randomizationConfigs.studyId, studyId));
  return new Map(rows.map((r) => [r.id, r.config as RandomizationConfig]));
}

/** One patient's randomization, or null before it. */
export async function getSubjectRandomization(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  subjectId: number,
) {
  const [row] = await ctx.db
    .select()
    .from(randomizations)
    .where(and(eq(randomizations.studyId, access.studyId), eq(randomizations.subjectId, subjectId)));
  if (!row) return null;
  const { state, config } = await current(ctx.db, access.studyId);
  const configs = await configsOf(ctx.db, access.studyId);
  const own = configs.get(row.configId)!;
  return present(
    row,
    own,
    seesArms(access, own, state) || (await unblindedBy(ctx.db, access.studyId, subjectId, user.userId)),
    stratumLabels(config ?? own, configs),
  );
}

/** The user who emergency-unblinded a patient knows the arm already: their own views keep showing it. */
async function unblindedBy(db: Db, studyId: number, subjectId: number, userId: number) {
  const [row] = await db
    .select({ id: randomizationUnblindings.id })
    .from(randomizationUnblindings)
    .where(
      and(
        eq(randomizationUnblindings.studyId, studyId),
        eq(randomizationUnblindings.subjectId, subjectId),
        eq(randomizationUnblindings.userId, userId),
      ),
    )
    .limit(1);
  return Boolean(row);
}

export interface SelectedFilter {
  arm?: string | undefined;
  keyword?: string | undefined;
}

function selectedQuery(db: Db) {
  return db
    .select({
      r: randomizations,
      identificationCode: subjects.identificationCode,
      subjectName: subjects.subjectName,
      deptName: departments.deptName,
      randomizedByName: users.name,
    })
    .from(randomizations)
    .innerJoin(subjects, eq(subjects.id, randomizations.subjectId))
    .leftJoin(departments, eq(departments.deptId, subjects.deptId))
    .leftJoin(users, eq(users.userId, randomizations.randomizedBy));
}

/**
 * Randomized patients (随机结果), newest number first, those of the caller's sites only (分中心); arms and names as
 * the caller may see them.
 */
export async function listSelected(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  filter: SelectedFilter,
  page: PageRequest | null,
) {
  const { state, config } = await current(ctx.db, access.studyId);
  const configs = await configsOf(ctx.db, access.studyId);
  const arms = seesArms(access, config, state);
  const keyword = filter.keyword?.replace(/[\\%_]/g, '\\$&');
  const where = and(
    eq(randomizations.studyId, access.studyId),
    inCallerSites(access, subjects.deptId),
    arms && filter.arm ? eq(randomizations.arm, filter.arm) : undefined,
    keyword ? sql`${subjects.identificationCode} ilike ${`%${keyword}%`}` : undefined,
  );
  const [{ total }] = (await ctx.db
    .select({ total: count() })
    .from(randomizations)
    .innerJoin(subjects, eq(subjects.id, randomizations.subjectId))
    .where(where)) as [{ total: number }];
  let query = selectedQuery(ctx.db).where(where).orderBy(desc(randomizations.randomizationNo)).$dynamic();
  if (page) query = query.limit(page.limit).offset(page.offset);
  const rows = await query;
  const mine = new Set(
    (
      await ctx.db
        .select({ subjectId: randomizationUnblindings.subjectId })
        .from(randomizationUnblindings)
        .where(
          and(eq(randomizationUnblindings.studyId, access.studyId), eq(randomizationUnblindings.userId, user.userId)),
        )
    ).map((r) => r.subjectId),
  );
  const clear = seesIdentifiers(access);
  const label = stratumLabels(config ?? configs.values().next().value!, configs);
  return {
    armsVisible: arms,
    list: rows.map((x) => ({
      ...present(x.r, configs.get(x.r.configId)!, arms || mine.has(x.r.subjectId), label),
      identificationCode: x.identificationCode,
      subjectName: clear ? x.subjectName : maskName(x.subjectName),
      deptName: x.deptName ?? '',
      randomizeBy: x.randomizedByName ?? '',
    })),
    total: Number(total),
  };
}

/**
 * Counts per arm, per stratum and per factor level (随机列表); arm counts only for those who may see arms. The
 * counts are of the caller's sites' patients, as the list of results lists them (分中心); a stratum's size is the
 * study's list.
 */
export async function results(ctx: AppContext, access: StudyAccess) {
  const { state, row, config } = await current(ctx.db, access.studyId);
  if (!row || !config) {
    return { configured: false, total: 0, armsVisible: false, arms: null, strata: [], factorLevels: [] };
  }
  const configs = await configsOf(ctx.db, access.studyId);
  const arms = seesArms(access, config, state);
  // A study in 测试 counts its test list's randomizations; a live one its production list's only (a test patient's
  // randomization against the drafts is not a figure of the study). Strata are the configuration's.
  const test = await studyInTest(ctx.db, access.studyId);
  const all = (
    await ctx.db
      .select({ arm: randomizations.arm, stratum: randomizations.stratum, levels: randomizations.factorLevels })
      .from(randomizations)
      .where(
        and(
          eq(randomizations.studyId, access.studyId),
          eq(randomizations.test, test),
          subjectInCallerSites(access, randomizations.subjectId),
        ),
      )
  ).map((r) => ({ ...r, stratum: listStratum(r.stratum) }));
  const strataRows = (
    await ctx.db
      .select()
      .from(randomizationStrata)
      .where(and(eq(randomizationStrata.studyId, access.studyId), eq(randomizationStrata.configId, row.id)))
      .orderBy(asc(randomizationStrata.stratum))
  ).filter((s) => !isTestStratum(s.stratum));
  const label = stratumLabels(config, configs);
  const byArm = (rows: typeof all) =>
    arms ? Object.fromEntries(config.arms.map((a) => [a.code, rows.filter((r) => r.arm === a.code).length])) : null;
  const strataKeys = [...new Set([...strataRows.map((s) => s.stratum), ...all.map((r) => r.stratum)])];
  return {
    configured: true,
    version: row.version,
    method: row.method,
    blinded: config.blinded,
    armsVisible: arms,
    total: all.length,
    arms: arms ? config.arms.map((a) => ({ ...a, count: all.filter((r) => r.arm === a.code).length })) : null,
    strata: strataKeys.map((key) => {
      const s = strataRows.find((x) => x.stratum === key);
      const mine = all.filter((r) => r.stratum === key);
      return {
        stratum: key,
        stratumLabel: label(key),
        size: s?.size ?? 0,
        used: mine.length,
        arms: byArm(mine),
      };
    }),
    factorLevels: config.factors.flatMap((f) =>
      f.levels.map((l) => {
        const mine = all.filter((r) => r.levels[f.key] === l.code);
        return {
          factor: f.key,
          factorLabel: f.label,
          level: l.code,
          levelLabel: l.label,
          count: mine.length,
          arms: byArm(mine),
        };
      }),
    ),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Exports (audited; the workbook is written in routes' caller via randomization-export.ts)

export async function auditExport(
  ctx: AppContext,
  user: CurrentUser,
  studyId: number,
  action: 'randomization.export' | 'randomization.export_results',
  rows: number,
) {
  await ctx.db.transaction(async (tx) => {
    await audit(tx, user, ctx.clock(), [{ studyId, action, newValue: { rows } }]);
  });
}

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function workbook(sheets: Array<{ name: string; header: string[]; rows: unknown[][] }>) {
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  for (const s of sheets) {
    const sheet = book.addWorksheet(s.name);
    sheet.addRow(s.header);
    for (const r of s.rows) sheet.addRow(r);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

/**
 * The allocation list of the version in force, every stratum (unblinded roles: the route's permission). It names
 * no patient, so it is whole for a caller of any site.
 */
export async function exportList(ctx: AppContext, user: CurrentUser, access: StudyAccess) {
  const { studyId } = access;
  const { row, config } = await requireCurrent(ctx.db, studyId);
  const { list } = await listSlots(
    ctx,
    access,
    {},
    { pageNum: 1, pageSize: MAX_LIST_SLOTS, limit: MAX_LIST_SLOTS, offset: 0 },
  );
  const data = await workbook([
    {
      name: '随机分配表',
      // The first five columns are what parseUploadedList and verifyAllocationList read (分层 is the stratum key,
      // 分组 the arm code): saved as CSV, the sheet is checked against the seed as docs/randomization.md shows.
      header: ['分层', '序号', '区组', '区组长度', '分组', '分层名称', '分组名称', '药物编号', '随机号', '已使用'],
      rows: list.map((s) => [
        s.stratum,
        s.slot,
        s.block,
        s.blockSize,
        s.arm,
        s.stratumLabel,
        s.armLabel,
        s.kitCode,
        s.randomizationNo ?? '',
        s.used ? '是' : '否',
      ]),
    },
    {
      name: '配置',
      header: ['项目', '值'],
      rows: [
        ['版本', row.version],
        ['方法', config.method],
        ['来源', row.listSource],
        ['种子', row.listSource === 'generated' ? row.seed : ''],
        ['分组', config.arms.map((a) => `${a.code}=${a.label}(${a.ratio})`).join('; ')],
        ['配置JSON', JSON.stringify(config)],
      ],
    },
  ]);
  await auditExport(ctx, user, studyId, 'randomization.export', list.length);
  return { fileName: `随机分配表_v${row.version}.xlsx`, type: XLSX, data };
}

/** Randomized patients with numbers and arms as the caller may see them (随机结果). */
export async function exportSelected(ctx: AppContext, user: CurrentUser, access: StudyAccess) {
  const { list, armsVisible } = await listSelected(ctx, user, access, {}, null);
  const data = await workbook([
    {
      name: '随机结果',
      header: [
        '随机号',
        '编号',
        '患者姓名',
        '中心',
        '分层',
        '药物编号',
        ...(armsVisible ? ['分组'] : []),
        '随机时间',
        '操作人',
        '紧急揭盲',
      ],
      rows: list.map((r) => [
        r.randomizationNo,
        r.identificationCode,
        r.subjectName,
        r.deptName,
        r.stratumLabel,
        r.kitCode,
        ...(armsVisible ? [r.armLabel ?? ''] : []),
        r.randomizationTime,
        r.randomizeBy,
        r.emergencyUnblinded ? '已紧急揭盲' : '',
      ]),
    },
  ]);
  await auditExport(ctx, user, access.studyId, 'randomization.export_results', list.length);
  return { fileName: '随机结果.xlsx', type: XLSX, data };
}
