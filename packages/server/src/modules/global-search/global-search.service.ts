import { and, eq, ilike, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import {
  crfKey,
  hasPermission,
  maskName,
  SEARCH_HITS_PER_SOURCE,
  type GlobalSearchGroup,
  type GlobalSearchHit,
} from '@ecrf/core';
import { inCallerSites, siteScopedAccess } from '../../shared/patient-site.js';
import { notTestOfLiveStudy } from '../../shared/test-patients.js';
import type { AppContext } from '../../app-context.js';
import { crfs, studies, studyPersonnel, studyRoles, subjectRecords, subjects } from '../../db/schema/index.js';
import type { CurrentUser } from '../../shared/current-user.js';
import { hasStudyPermission, STUDY_MANAGE, type StudyAccess } from '../../shared/study-access.js';
import { seesIdentifiers } from '../subjects/subject.service.js';

/**
 * GET /api/v1/base/other/searchall?key (SHELL-33): one box over what the caller may see. Each source answers
 * for itself, inside the studies the caller may open (staff of, or all with study:manage) and by the same rules as
 * its own list: patients by code, and by name only where the caller sees names (查看患者身份信息), shown masked
 * otherwise; forms only where the caller may view them. Sources register here, so a module built later (knowledge
 * articles, experts) adds itself with registerSearchSource without this file changing.
 */

/** A study the caller may open, with what they may do in it. */
export interface SearchStudy {
  access: StudyAccess;
  studyName: string;
}

export interface SearchScope {
  user: CurrentUser;
  /** The studies the caller may open, by id. */
  studies: Map<number, SearchStudy>;
  /** The key as typed, trimmed; and as an ILIKE pattern with the wildcards escaped. */
  key: string;
  like: string;
  limit: number;
}

export interface SearchSource {
  type: string;
  /** The group's heading in the box. */
  label: string;
  /** Smaller first. */
  order: number;
  search(ctx: AppContext, scope: SearchScope): Promise<GlobalSearchHit[]>;
}

const sources = new Map<string, SearchSource>();

/** Adds (or replaces, by type) a source of the global search. */
export function registerSearchSource(source: SearchSource): void {
  sources.set(source.type, source);
}

export function unregisterSearchSource(type: string): void {
  sources.delete(type);
}

export function searchSources(): SearchSource[] {
  return [...sources.values()].sort((a, b) => a.order - b.order);
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The studies the caller may open, with their role's keys, read in one query. */
export async function searchableStudies(ctx: AppContext, user: CurrentUser): Promise<Map<number, SearchStudy>> {
  const all = hasPermission(user.permissions, STUDY_MANAGE);
  const rows = await ctx.db
    .select({
      studyId: studies.studyId,
      studyName: studies.studyName,
      timeZone: studies.timeZone,
      studyRoleId: studyPersonnel.studyRoleId,
      permissions: studyRoles.permissions,
      deptId: studyPersonnel.deptId,
      siteIds: studyPersonnel.siteIds,
    })
    .from(studies)
    .leftJoin(studyPersonnel, and(eq(studyPersonnel.studyId, studies.studyId), eq(studyPersonnel.userId, user.userId)))
    .leftJoin(studyRoles, eq(studyRoles.id, studyPersonnel.studyRoleId))
    .where(and(isNull(studies.deletedAt), all ? undefined : sql`${studyPersonnel.studyRoleId} is not null`));
  const found = new Map<number, SearchStudy>();
  for (const r of rows) {
    const access = siteScopedAccess(ctx, {
      studyId: r.studyId,
      member: r.studyRoleId !== null,
      studyRoleId: r.studyRoleId,
      permissions: r.permissions ?? [],
      all,
      timeZone: r.timeZone,
      deptId: r.deptId,
      siteIds: r.siteIds,
    });
    found.set(r.studyId, { studyName: r.studyName, access: await access });
  }
  return found;
}

export async function searchAll(ctx: AppContext, user: CurrentUser, rawKey: string): Promise<GlobalSearchGroup[]> {
  const key = rawKey.trim();
  if (!key) return [];
  const scope: SearchScope = {
    user,
    studies: await searchableStudies(ctx, user),
    key,
    like: `%${escapeLike(key)}%`,
    limit: SEARCH_HITS_PER_SOURCE,
  };
  if (scope.studies.size === 0) return [];
  const groups: GlobalSearchGroup[] = [];
  for (const source of searchSources()) {
    const hits = (await source.search(ctx, scope)).slice(0, scope.limit);
    if (hits.length) groups.push({ type: source.type, label: source.label, hits });
  }
  return groups;
}

registerSearchSource({
  type: 'study',
  label: '项目',
  order: 10,
  async search(ctx, scope) {
    const rows = await ctx.db
      .select({ studyId: studies.studyId, studyName: studies.studyName })
      .from(studies)
      .where(
        and(
          inArray(studies.studyId, [...scope.studies.keys()]),
          isNull(studies.deletedAt),
          ilike(studies.studyName, scope.like),
        ),
      )
      .orderBy(studies.studyName)
      .limit(scope.limit);
    return rows.map((r) => ({
      type: 'study',
      id: r.studyId,
      title: r.studyName,
      description: null,
      studyId: r.studyId,
      path: `/project/${r.studyId}/home`,
    }));
  },
});

registerSearchSource({
  type: 'subject',
  label: '患者',
  order: 20,
  async search(ctx, scope) {
    const clear: number[] = [];
    const masked: number[] = [];
    // A name is matched only where the caller may read it: elsewhere a hit would reveal it letter by letter.
    const byCode = ilike(subjects.identificationCode, scope.like);
    const byCodeOrName = or(byCode, ilike(subjects.subjectName, scope.like))!;
    const where: SQL[] = [];
    for (const [studyId, s] of scope.studies) {
      const match = seesIdentifiers(s.access) ? byCodeOrName : byCode;
      // A study where the caller sees some sites only (分中心): its own condition, those sites' patients.
      if (s.access.siteIds !== null) {
        where.push(and(eq(subjects.studyId, studyId), inCallerSites(s.access, subjects.deptId), match)!);
      } else (match === byCode ? masked : clear).push(studyId);
    }
    if (clear.length) where.push(and(inArray(subjects.studyId, clear), byCodeOrName)!);
    if (masked.length) where.push(and(inArray(subjects.studyId, masked), byCode)!);
    const rows = await ctx.db
      .select({
        subjectId: subjects.id,
        studyId: subjects.studyId,
        identificationCode: subjects.identificationCode,
        subjectName: subjects.subjectName,
        subjectRecordId: subjectRecords.id,
      })
      .from(subjects)
      .innerJoin(
        subjectRecords,
        and(
          eq(subjectRecords.subjectId, subjects.id),
          eq(subjectRecords.studyId, subjects.studyId),
          isNull(subjectRecords.deletedAt),
        ),
      )
      // A production study's test patients (entered against drafts) are no hits: they are found in its patient list.
      .where(and(isNull(subjects.deletedAt), notTestOfLiveStudy, or(...where)))
      .orderBy(subjects.identificationCode, subjects.id)
      .limit(scope.limit);
    return rows.map((r) => {
      const study = scope.studies.get(r.studyId)!;
      const name = seesIdentifiers(study.access) ? r.subjectName : maskName(r.subjectName);
      return {
        type: 'subject',
        id: r.subjectId,
        title: r.identificationCode,
        description: `${name} · ${study.studyName}`,
        studyId: r.studyId,
        path: `/crf/${r.subjectRecordId}`,
      };
    });
  },
});

registerSearchSource({
  type: 'crf',
  label: 'CRF',
  order: 30,
  async search(ctx, scope) {
    const rows = await ctx.db
      .select({ crfId: crfs.id, studyId: crfs.studyId, title: crfs.title })
      .from(crfs)
      .where(and(inArray(crfs.studyId, [...scope.studies.keys()]), ilike(crfs.title, scope.like)))
      .orderBy(crfs.title, crfs.id)
      // Forms the caller may not view are dropped below: read a few more so the page is still full.
      .limit(scope.limit * 4);
    return rows
      .filter((r) => hasStudyPermission(scope.studies.get(r.studyId)!.access, crfKey(r.crfId, 'view')))
      .map((r) => ({
        type: 'crf',
        id: r.crfId,
        title: r.title,
        description: scope.studies.get(r.studyId)!.studyName,
        studyId: r.studyId,
        path: `/crf/detail/${r.crfId}`,
      }));
  },
});
