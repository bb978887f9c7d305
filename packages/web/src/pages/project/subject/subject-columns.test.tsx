import { describe, expect, it } from 'vitest';
import type { RecordColumn, SubjectRecordRow } from '../../../api/subject.api';
import { tableWidth } from '../../../components/table-page';
import { subjectColumns, subjectLayout, type SubjectColumnsInput } from './subject-columns';

/** The demo study's list: the patient fields and two CRF columns. */
const COLUMNS: RecordColumn[] = [
  { key: 'identificationCode', title: '编号', source: 'base', width: 140 },
  { key: 'subjectName', title: '患者姓名', source: 'base', width: 120 },
  { key: 'gender', title: '性别', source: 'base', width: 120 },
  { key: 'birth', title: '出生日期', source: 'base', width: 120 },
  { key: 'age', title: '年龄', source: 'base', width: 120 },
  { key: 'mobile', title: '手机号', source: 'base', width: 120 },
  { key: 'diseaseCode', title: '病种', source: 'base', width: 120 },
  { key: 'sex', title: 'sex', source: 'crf', width: 150 },
  { key: 'age2', title: 'age', source: 'crf', width: 150 },
];

const input = (columns: RecordColumn[]): SubjectColumnsInput => ({
  columns,
  baseValue: (key, row) => String((row as unknown as Record<string, unknown>)[key] ?? ''),
  crfTitle: (column) => column.title,
  crfValue: () => '',
  label: (key) => key,
  showDeleted: false,
  actions: ['录入', '查看', '编辑', '状态', '操作记录', '删除'].map((label) => ({
    key: label,
    label,
    onClick: (_row: SubjectRecordRow) => undefined,
  })),
});

/** The room a list has at a window width with the side menu open (measured in Chromium). */
const ROOM = { 1920: 1566, 1440: 1086, 1366: 1012, phone: 280 };

describe('patient list layout', () => {
  it('shows every field in its own column when the page has room (1920 px), stacked ones from 1366 px, a card on a phone', () => {
    const demo = input(COLUMNS);
    expect(subjectLayout(ROOM[1920], demo)).toBe('wide');
    expect(subjectLayout(ROOM[1440], demo)).toBe('compact');
    expect(subjectLayout(ROOM[1366], demo)).toBe('compact');
    expect(subjectLayout(ROOM.phone, demo)).toBe('card');
    // Not measured yet (first render, unit tests): every column.
    expect(subjectLayout(0, demo)).toBe('wide');
  });

  it('a study listing more CRF columns gets the compact list sooner; the compact list fits 1366 px with them', () => {
    const many = input([
      ...COLUMNS,
      ...['a', 'b', 'c', 'd'].map((key): RecordColumn => ({ key, title: key, source: 'crf', width: 150 })),
    ]);
    expect(subjectLayout(ROOM[1920], many)).toBe('compact');
    expect(tableWidth(subjectColumns('compact', many), { index: true })).toBeLessThanOrEqual(ROOM[1366]);
  });

  it('keeps 录入 and 查看 in the row and the rest under 更多; the card stacks them', () => {
    const [wide, card] = [subjectColumns('wide', input(COLUMNS)), subjectColumns('card', input(COLUMNS))];
    const actions = wide[wide.length - 1]!;
    expect(actions).toMatchObject({ kind: 'actions', inline: 3 });
    expect(card).toHaveLength(2);
    expect(card[1]).toMatchObject({ kind: 'actions', vertical: true });
  });
});
