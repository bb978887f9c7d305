import { and, eq, isNull, sql } from 'drizzle-orm';
import { MISSING_MSG, type MissingCode } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Tx } from '../../db/client.js';
import { crfDataRecords, studies } from '../../db/schema/index.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { changeStudy } from './study.service.js';

/**
 * 缺失原因 (issue 37): the study's missing-data codes, read by the CRF page and set by a data manager (study:config).
 * A change is a study setting like any other: audited by changeStudy (study.config, itemName missingCodes).
 */

export async function getMissingCodes(ctx: AppContext, studyId: number): Promise<MissingCode[]> {
  const [row] = await ctx.db
    .select({ codes: studies.missingCodes })
    .from(studies)
    .where(and(eq(studies.studyId, studyId), isNull(studies.deletedAt)));
  if (!row) throw AppError.notFound('study.not_found', '项目不存在');
  return row.codes;
}

/** How many live records of the study carry a code: a code in use cannot be removed (their marks would mean nothing). */
async function recordsMarkedWith(tx: Tx, studyId: number, code: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(crfDataRecords)
    .where(
      and(
        eq(crfDataRecords.studyId, studyId),
        isNull(crfDataRecords.deletedAt),
        sql`exists (select 1 from jsonb_each_text(${crfDataRecords.missing}) as m where m.value = ${code})`,
      ),
    );
  return Number(row?.n ?? 0);
}

export async function setMissingCodes(ctx: AppContext, user: CurrentUser, studyId: number, codes: MissingCode[]) {
  const after = await changeStudy(ctx, user, studyId, async (tx, before) => {
    const kept = new Set(codes.map((c) => c.code));
    for (const { code } of before.missingCodes.filter((c) => !kept.has(c.code))) {
      const used = await recordsMarkedWith(tx, studyId, code);
      if (used > 0) throw AppError.badRequest('study.missing_code_in_use', MISSING_MSG.inUse(code, used));
    }
    return { missingCodes: codes };
  });
  return after.missingCodes;
}
