import {
  date,
  index,
  integer,
  numeric,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  varchar,
} from 'drizzle-orm/pg-core';
import { departments, users } from './system.js';
import { studies } from './study.js';

/**
 * A site laboratory's reference range (参考范围, issue 37) for one analyte: by sex (null both, 1 male, 2 female),
 * age band in years [ageMin, ageMax) and the date it takes effect. A value's range is the patient's site's row
 * that matches at the sample date, the latest effective one; an item without one keeps its own range.
 */
export const labReferenceRanges = pgTable(
  'lab_reference_ranges',
  {
    id: serial('id').primaryKey(),
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    siteId: integer('site_id')
      .notNull()
      .references(() => departments.deptId),
    /** The analyte's code as the CRF item names it (e.g. WBC, HGB, ALT). */
    analyte: varchar('analyte', { length: 40 }).notNull(),
    analyteName: text('analyte_name'),
    unit: varchar('unit', { length: 30 }),
    sex: smallint('sex'),
    ageMin: numeric('age_min'),
    ageMax: numeric('age_max'),
    lower: numeric('lower'),
    upper: numeric('upper'),
    effectiveFrom: date('effective_from').notNull(),
    createdBy: integer('created_by').references(() => users.userId),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('lab_reference_ranges_lookup').on(t.studyId, t.siteId, t.analyte, t.effectiveFrom),
    unique('lab_reference_ranges_study_key').on(t.studyId, t.id),
  ],
);
