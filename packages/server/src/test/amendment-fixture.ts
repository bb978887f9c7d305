import { and, eq, sql } from 'drizzle-orm';
import type { CrfDefinition, CrfNode } from '@ecrf/core';
import type { Db } from '../db/client.js';
import { crfDataRecords } from '../db/schema/index.js';

/**
 * A production study with one form, 随访评估, whose version 2 changes every kind of thing the impact report names:
 * an item removed (备注), an item retyped (过敏: 下拉多选 → 多选, its values convert), a new bound (体重 ≤ 150), a new
 * calculation (指数 = 体重 / 4 instead of / 2), new skip logic (吸烟史 only for 男) and an item added (饮酒).
 */

const item = (type: CrfNode['type'], name: string, title: string, option: CrfNode['option'] = {}): CrfNode => ({
  name,
  title,
  type,
  option,
  children: [],
});

export const FORM_TITLE = '随访评估';

export const V1: CrfDefinition = {
  title: FORM_TITLE,
  option: {},
  children: [
    item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
    item('real', 'weight', '体重', { units: 'kg' }),
    item('real', 'bmi', '指数', { calc: 'weight / 2' }),
    item('input', 'smoke', '吸烟史'),
    item('input', 'note', '备注'),
    item('input', 'score', '评分'),
    item('multiSelect', 'allergy', '过敏', { optionsValue: 'a,b,c', optionsText: '青霉素,磺胺,其他' }),
  ],
} as CrfDefinition;

export const V2: CrfDefinition = {
  title: FORM_TITLE,
  option: {},
  children: [
    item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
    item('real', 'weight', '体重', { units: 'kg', validate: { min: 0, max: 150 } }),
    item('real', 'bmi', '指数', { calc: 'weight / 4' }),
    item('input', 'smoke', '吸烟史', { showIf: 'sex == "1"' }),
    item('int', 'score', '评分'),
    item('checkbox', 'allergy', '过敏', { optionsValue: 'a,b,c', optionsText: '青霉素,磺胺,其他' }),
    item('input', 'alcohol', '饮酒'),
  ],
} as CrfDefinition;

/**
 * Many live records of a form, written directly (one statement): the load test and the bench migrate them. Each
 * record is its own patient's, on version 1, alternating between two sites; a third are women (吸烟史 then hidden by
 * version 2), every 指数 changes (the calculation is new), so every record's values change when it moves.
 */
export async function seedRecords(
  db: Db,
  target: { studyId: number; crfId: number; siteA: number; siteB: number },
  count: number,
  prefix = 'L',
) {
  await db.execute(sql`with subj as (
      insert into subjects (study_id, identification_code, subject_name, gender, disease_code, qr_code, dept_id)
      select ${target.studyId}, ${prefix} || lpad(g::text, 6, '0'), '负载患者' || g, 1, 'LSS', md5(${prefix} || g::text),
        case when g % 2 = 0 then ${target.siteA}::int else ${target.siteB}::int end
      from generate_series(1, ${count}::int) g
      returning id
    ), rec as (
      insert into subject_records (study_id, subject_id) select ${target.studyId}, id from subj returning id
    )
    insert into crf_data_records (study_id, subject_record_id, crf_id, crf_version, state, version, "values", single_form)
    select ${target.studyId}, rec.id, ${target.crfId}, 1, 1, 1,
      jsonb_build_object('sex', case when rec.id % 3 = 0 then '2' else '1' end, 'weight', (50 + rec.id % 40)::text,
        'bmi', ((50 + rec.id % 40) / 2)::text, 'smoke', '有', 'note', '旧备注'),
      true
    from rec`);
}

/** The form's records of men (their 吸烟史 stays shown under version 2), as the savers pick them. */
export async function menRecords(db: Db, crfId: number, count: number) {
  const rows = await db
    .select({ id: crfDataRecords.id, subjectRecordId: crfDataRecords.subjectRecordId })
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.crfId, crfId), sql`${crfDataRecords.values}->>'sex' = '1'`))
    .orderBy(crfDataRecords.id)
    .limit(count);
  return rows;
}
