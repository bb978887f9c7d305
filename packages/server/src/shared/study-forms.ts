import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { crfStageCrfs, crfStages, crfs } from '../db/schema/index.js';

/**
 * A study's forms (with their current versions), its visit phases in the sidebar's order and which forms each
 * phase holds: what the search dictionary and the export both lay out their forms by.
 */
export async function studyFormLayout(db: Db, studyId: number) {
  const forms = await db
    .select({ id: crfs.id, title: crfs.title, version: crfs.currentVersion })
    .from(crfs)
    .where(eq(crfs.studyId, studyId))
    .orderBy(asc(crfs.id));
  const stages = await db
    .select({ stageId: crfStages.id, name: crfStages.name })
    .from(crfStages)
    .where(eq(crfStages.studyId, studyId))
    .orderBy(asc(crfStages.orderNum), asc(crfStages.id));
  const links = await db
    .select({ stageId: crfStageCrfs.stageId, crfId: crfStageCrfs.crfId, repeat: crfStageCrfs.repeat })
    .from(crfStageCrfs)
    .where(eq(crfStageCrfs.studyId, studyId));
  return { forms, stages, links };
}
