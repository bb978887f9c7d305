import { it } from 'vitest';
import { item } from '../test/fixtures.js';
import { migrateRecordValues } from './plan-migration.js';
it('dbg', () => {
  const a = {
    title: 't',
    option: {},
    children: [
      item('listGroup', 'meds', 'm', {}, [
        item('input', 'drug', 'd'),
        item('real', 'dose', 'x'),
        item('input', 'route', 'r'),
      ]),
    ],
  };
  const d = {
    title: 't',
    option: {},
    children: [
      item('listGroup', 'meds', 'm', {}, [
        item('input', 'drug', 'd'),
        item('real', 'dose', 'x', { showIf: 'drug != "停用"' }),
      ]),
    ],
  };
  const e = migrateRecordValues(
    a,
    d,
    {
      meds: [
        { drug: 'A', dose: '100', route: 'k' },
        { drug: '停用', dose: '5' },
      ],
    },
    { today: '2024-01-01', timeZone: 'Asia/Shanghai' },
  );
  console.log(JSON.stringify(e));
});
