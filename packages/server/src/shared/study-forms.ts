import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { crfStageCrfs, crfStages, crfs } from '../db/schema/index.js';

/** A study's forms with their current versions, in the order they were made. */
export function studyFormsOf(db: Db, studyId: number) {
  return db
    .select({ id: crfs.id, title: crfs.title, version: crfs.currentVersion })
    .from(crfs)
    .where(eq(crfs.studyId, studyId))
    .orderBy(asc(crfs.id));
}

/** Which forms each visit phase of a study holds, and whether a form repeats there (repeat other than 1). */
export function stageLinksOf(db: Db, studyId: number) {
  return db
    .select({ stageId: crfStageCrfs.stageId, crfId: crfStageCrfs.crfId, repeat: crfStageCrfs.repeat })
    .from(crfStageCrfs)
    .where(eq(crfStageCrfs.studyId, studyId));
}

/**
 * A study's forms (with their current versions), its visit phases in the sidebar's order and which forms each
 * phase holds: what the search dictionary and the export both lay out their forms by.
 */
export async function studyFormLayout(db: Db, studyId: number) {
  const forms = await studyFormsOf(db, studyId);
  const stages = await db
    .select({ stageId: crfStages.id, name: crfStages.name })
    .from(crfStages)
    .where(eq(crfStages.studyId, studyId))
    .orderBy(asc(crfStages.orderNum), asc(crfStages.id));
  const links = await stageLinksOf(db, studyId);
  return { forms, stages, links };
}
