import { bigint, integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';
import { studies } from './study.js';

/**
 * The study home's figures kept as counts (docs/decisions.md "Study home figures as counters"), so that the
 * home page reads a few dozen rows whatever the study's size. A count is the figure's row here plus the deltas
 * not yet folded into it (`study_figure_changes`). Statement triggers on the counted tables append the deltas
 * (migration 0033); only the scheduled fold (`study-figures.ts`) updates these rows, so a clinical write never
 * waits for a lock on a shared counter.
 */
export const studyFigures = pgTable(
  'study_figures',
  {
    studyId: integer('study_id')
      .notNull()
      .references(() => studies.studyId),
    /** What is counted: STUDY_FIGURE in modules/home/study-figures.ts (1 casebooks by state, 2 forms by CRF and state, …). */
    figure: smallint('figure').notNull(),
    /** The CRF (forms, queries) or planned visit (follow-up) counted; 0 when the figure has none. */
    ref: integer('ref').notNull().default(0),
    /** The month enrolled (`YYYY-MM` in the study's zone) or the visit's name; '' when the figure has none. */
    label: text('label').notNull().default(''),
    state: smallint('state').notNull().default(0),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.studyId, t.figure, t.ref, t.label, t.state] })],
);

/** Deltas appended by the counted tables' triggers, folded into study_figures each minute. */
export const studyFigureChanges = pgTable(
  'study_figure_changes',
  {
    studyId: integer('study_id').notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    figure: smallint('figure').notNull(),
    ref: integer('ref').notNull(),
    label: text('label').notNull(),
    state: smallint('state').notNull(),
    delta: integer('delta').notNull(),
  },
  (t) => [primaryKey({ columns: [t.studyId, t.id] })],
);
