import { and, eq, ilike, inArray, isNull, or } from 'drizzle-orm';
import { experts, knowledgeArticles } from '../../db/schema/index.js';
import { registerSearchSource } from './global-search.service.js';

/**
 * The global search's sources over patient-facing content (issue 19): knowledge articles and experts. Both are
 * content the study shows its patients, so every member of the study may find them; drafts stay out (a draft is
 * its author's work, found on 知识库 itself).
 */

registerSearchSource({
  type: 'knowledge',
  label: '知识库',
  order: 40,
  async search(ctx, scope) {
    const rows = await ctx.db
      .select({ id: knowledgeArticles.id, title: knowledgeArticles.title, studyId: knowledgeArticles.studyId })
      .from(knowledgeArticles)
      .where(
        and(
          eq(knowledgeArticles.status, 'published'),
          or(isNull(knowledgeArticles.studyId), inArray(knowledgeArticles.studyId, [...scope.studies.keys()])),
          ilike(knowledgeArticles.title, scope.like),
        ),
      )
      .orderBy(knowledgeArticles.title, knowledgeArticles.id)
      .limit(scope.limit);
    return rows.map((r) => ({
      type: 'knowledge',
      id: r.id,
      title: r.title,
      description: r.studyId === null ? '平台' : (scope.studies.get(r.studyId)?.studyName ?? null),
      studyId: r.studyId,
      path: '/project/knowledge',
    }));
  },
});

registerSearchSource({
  type: 'expert',
  label: '医生',
  order: 50,
  async search(ctx, scope) {
    const rows = await ctx.db
      .select({ id: experts.id, name: experts.name, title: experts.title, studyId: experts.studyId })
      .from(experts)
      .where(and(inArray(experts.studyId, [...scope.studies.keys()]), ilike(experts.name, scope.like)))
      .orderBy(experts.name, experts.id)
      .limit(scope.limit);
    return rows.map((r) => ({
      type: 'expert',
      id: r.id,
      title: r.name,
      description: [r.title, scope.studies.get(r.studyId)?.studyName].filter(Boolean).join(' · ') || null,
      studyId: r.studyId,
      path: '/project/expert',
    }));
  },
});
