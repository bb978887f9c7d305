import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import { deepFreeze, item } from '../test/fixtures.js';
import type { MigrationOptions } from './amendment-types.js';
import { MARK_MSG } from './migrate-marks.js';
import { migrateRecordValues, planRecordMigration } from './plan-migration.js';

/** 缺失原因 (issue 37) in an amendment's migration: marks go to the engine; dropped marks are said explicitly. */
const options: MigrationOptions = { today: '2024-06-15', timeZone: 'Asia/Shanghai' };
const form = (children: CrfNode[]): CrfDefinition => deepFreeze({ title: '随访', option: {}, children });

const v1 = form([
  item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
  item('int', 'sbp', '收缩压'),
  item('input', 'smoke', '吸烟史'),
  item('input', 'old_note', '备注'),
]);
const v2 = form([
  item('radio', 'sex', '性别', { optionsValue: '1,2', optionsText: '男,女' }),
  item('int', 'sbp', '收缩压', { required: 1 }),
  item('input', 'smoke', '吸烟史', { showIf: 'sex == "1"' }),
]);

describe('missing-data marks across a version change', () => {
  const record = {
    id: 1,
    values: { sex: '2' },
    missing: { sbp: 'ND', smoke: 'UNK', old_note: 'NA' },
    submitted: true,
    signed: false,
    sdvVerified: false,
    locked: false,
  };

  it('a newly required item marked missing is kept and not reported; removed and hidden items’ marks are dropped and said', () => {
    const migrated = migrateRecordValues(v1, v2, record.values, options, record);
    expect(migrated.missing).toEqual({ sbp: 'ND' });
    expect(migrated.changes.filter((c) => c.itemName === 'sbp')).toEqual([]);
    expect(migrated.changes).toContainEqual(
      expect.objectContaining({
        itemName: 'old_note',
        kind: 'removed',
        oldValue: '[缺失:NA]',
        newValue: null,
        message: MARK_MSG.removed,
      }),
    );
    expect(migrated.changes).toContainEqual(
      expect.objectContaining({ itemName: 'smoke', kind: 'hidden', oldValue: '[缺失:UNK]', message: MARK_MSG.hidden }),
    );
  });

  it('the impact report of the record says the same', () => {
    const impact = planRecordMigration(v1, v2, record, options);
    expect(impact.changes.map((c) => `${c.kind} ${c.itemName}`).sort()).toEqual(['hidden smoke', 'removed old_note']);
  });

  it('a record without marks keeps none', () => {
    expect(migrateRecordValues(v1, v2, { sbp: 120 }, options).missing).toEqual({});
  });
});
