import { LockOutlined } from '@ant-design/icons';
import { Progress, Tag, Tooltip } from 'antd';
import type { RecordColumn, SubjectRecordRow, SubjectState } from '../../../api/subject.api';
import {
  actionsColumn,
  tableWidth,
  type DataColumn,
  type PageColumn,
  type RowAction,
} from '../../../components/table-page';
import { RANDOMIZATION_TEXT } from '../../../locales/randomization.zh-CN';
import { SUBJECT_TEXT } from '../../../locales/subject.zh-CN';
import { formatDate } from '../../../utils/format-date';
import { TestPatientTag } from '../../../components/test-data-tag';
import { UnblindedMark } from '../randomization/components/randomization-result';
import { StateTag } from './subject-state';

/**
 * How the patient list is laid out, the widest that fits the page:
 * - wide: every configured field in its own column;
 * - compact: who (编号, name, state), 表单进度, the other patient fields together, the CRF columns together, and
 *   入组时间 with 创建人, so that a 1366 px screen shows a patient on one row without sideways scrolling;
 * - card: one column per patient and the actions stacked beside it (phones, narrow tablets).
 */
export type SubjectLayout = 'wide' | 'compact' | 'card';

/** Widths of the patient fields that have a known shape; the server's width otherwise. */
const BASE_WIDTHS: Record<string, number> = {
  identificationCode: 90,
  subjectName: 80,
  gender: 52,
  birth: 100,
  age: 52,
  mobile: 106,
  idNumber: 170,
  diseaseCode: 110,
  deptId: 110,
};
const CRF_COLUMN_WIDTH = 110;
const LEADING_FIELDS: ReadonlySet<string> = new Set(['identificationCode', 'subjectName']);

export interface SubjectColumnsInput {
  /** The study's configured list columns, as the server answers them. */
  columns: readonly RecordColumn[];
  /** A patient field's text on a row (labels for codes, masks as sent). */
  baseValue: (key: string, row: SubjectRecordRow) => string;
  /** A CRF column's title and a row's text in it. */
  crfTitle: (column: RecordColumn) => string;
  crfValue: (column: RecordColumn, row: SubjectRecordRow) => string;
  /** The configured label of a patient field. */
  label: (key: string) => string;
  showDeleted: boolean;
  actions: readonly RowAction<SubjectRecordRow>[];
  /** The lock holding a row's casebook (its words), if any: shown as 🔒 beside the code. */
  lockOf?: (row: SubjectRecordRow) => string | null;
}

function LockMark({ text }: { text: string }) {
  return (
    <Tooltip title={text}>
      <LockOutlined className="subject-lock" role="img" aria-label={text} />
    </Tooltip>
  );
}

function stateOf(row: SubjectRecordRow, showDeleted: boolean) {
  return showDeleted ? (
    <Tag color="red">{SUBJECT_TEXT.deletedTag}</Tag>
  ) : (
    <StateTag state={row.state as SubjectState} />
  );
}

function progressOf(row: SubjectRecordRow, width: number) {
  const { submitted, total } = row.crfStates ?? { submitted: 0, total: 0 };
  return (
    <Tooltip title={SUBJECT_TEXT.progressTip(submitted, total)}>
      <Progress
        size="small"
        percent={total > 0 ? Math.round((submitted / total) * 100) : 0}
        format={() => `${submitted}/${total}`}
        style={{ width, margin: 0 }}
        aria-label={SUBJECT_TEXT.progressTip(submitted, total)}
      />
    </Tooltip>
  );
}

/** Values of several fields in one cell, each with its label as a tooltip; the empty ones left out. */
function FieldList({ entries }: { entries: ReadonlyArray<{ key: string; label: string; text: string }> }) {
  const shown = entries.filter((entry) => entry.text !== '');
  return (
    <div className="subject-fields">
      {shown.map((entry) => (
        <span key={entry.key} className="subject-field" title={entry.label}>
          {entry.text}
        </span>
      ))}
    </div>
  );
}

/** The list's columns for a layout. */
export function subjectColumns(layout: SubjectLayout, input: SubjectColumnsInput): PageColumn<SubjectRecordRow>[] {
  const { columns, baseValue, crfTitle, crfValue, label, showDeleted, actions, lockOf } = input;
  const lockMark = (row: SubjectRecordRow) => {
    const text = lockOf?.(row);
    return text ? <LockMark text={text} /> : null;
  };
  const base = columns.filter((column) => column.source === 'base');
  const leading = base.filter((column) => LEADING_FIELDS.has(column.key));
  const otherBase = base.filter((column) => !LEADING_FIELDS.has(column.key));
  const crf = columns.filter((column) => column.source === 'crf');
  // 年龄 reads as a number alone; in a list of values it carries its unit.
  const fieldText = (key: string, row: SubjectRecordRow) => {
    const text = baseValue(key, row);
    return key === 'age' && text !== '' ? `${text}${SUBJECT_TEXT.ageUnit}` : text;
  };
  const patientCell = (row: SubjectRecordRow) => (
    <div className="subject-who">
      <strong>
        {baseValue('identificationCode', row)} {lockMark(row)} <TestPatientTag test={row.test} />
      </strong>
      <span>
        {baseValue('subjectName', row)} {stateOf(row, showDeleted)}
      </span>
      {row.emergencyUnblinded && <UnblindedMark />}
    </div>
  );
  const enrolCell = (row: SubjectRecordRow) => (
    <>
      <div>{formatDate(row.createTime)}</div>
      <div className="subject-sub" title={SUBJECT_TEXT.creater}>
        {row.creater}
      </div>
    </>
  );
  const crfEntries = (row: SubjectRecordRow) =>
    crf.map((column) => ({ key: column.key, label: crfTitle(column), text: crfValue(column, row) }));
  const crfList = (row: SubjectRecordRow) => (
    <div className="subject-crf-values">
      {crfEntries(row)
        .filter((entry) => entry.text !== '')
        .map((entry) => (
          <div key={entry.key}>
            <span className="subject-sub">{entry.label}：</span>
            {entry.text}
          </div>
        ))}
    </div>
  );

  if (layout === 'card') {
    return [
      {
        title: SUBJECT_TEXT.title,
        key: 'card',
        ellipsis: false,
        minWidth: 180,
        render: (_: unknown, row) => (
          <div className="subject-card">
            {patientCell(row)}
            {progressOf(row, 120)}
            <FieldList
              entries={otherBase.map((column) => ({
                key: column.key,
                label: label(column.key),
                text: fieldText(column.key, row),
              }))}
            />
            {crfList(row)}
            {enrolCell(row)}
          </div>
        ),
      },
      actionsColumn(actions, 3, true),
    ];
  }

  if (layout === 'compact') {
    const compact: PageColumn<SubjectRecordRow>[] = [
      {
        title: SUBJECT_TEXT.patient,
        key: 'who',
        width: 130,
        ellipsis: false,
        render: (_: unknown, row) => patientCell(row),
      },
      {
        title: SUBJECT_TEXT.progress,
        key: 'progress',
        width: 110,
        ellipsis: false,
        render: (_, row) => progressOf(row, 90),
      },
    ];
    if (otherBase.length > 0) {
      compact.push({
        title: SUBJECT_TEXT.baseInfo,
        key: 'base',
        minWidth: 170,
        ellipsis: false,
        render: (_: unknown, row) => (
          <FieldList
            entries={otherBase.map((column) => ({
              key: column.key,
              label: label(column.key),
              text: fieldText(column.key, row),
            }))}
          />
        ),
      });
    }
    if (crf.length > 0) {
      compact.push({
        title: SUBJECT_TEXT.crfValues,
        key: 'crf',
        minWidth: 150,
        ellipsis: false,
        render: (_: unknown, row) => crfList(row),
      });
    }
    compact.push(
      {
        title: `${SUBJECT_TEXT.createTime} / ${SUBJECT_TEXT.creater}`,
        key: 'enrol',
        width: 160,
        ellipsis: false,
        render: (_: unknown, row) => enrolCell(row),
      },
      actionsColumn(actions),
    );
    return compact;
  }

  const baseColumn = (column: RecordColumn): DataColumn<SubjectRecordRow> => ({
    title: column.title,
    key: `base:${column.key}`,
    width: BASE_WIDTHS[column.key] ?? column.width,
    render: (_: unknown, row) =>
      column.key === 'subjectName' && row.emergencyUnblinded ? (
        <>
          {baseValue(column.key, row)} <UnblindedMark />
        </>
      ) : column.key === 'identificationCode' && (lockOf?.(row) || row.test) ? (
        <>
          {baseValue(column.key, row)} {lockMark(row)} <TestPatientTag test={row.test} />
        </>
      ) : (
        baseValue(column.key, row)
      ),
    text: (row) =>
      column.key === 'subjectName' && row.emergencyUnblinded
        ? `${baseValue(column.key, row)} ${RANDOMIZATION_TEXT.emergencyMark}`
        : baseValue(column.key, row),
  });
  return [
    // Who the patient is, where they stand and how far their forms are come first.
    ...leading.map(baseColumn),
    {
      title: SUBJECT_TEXT.state,
      dataIndex: 'state',
      kind: 'status',
      width: 64,
      render: (_: unknown, row) => stateOf(row, showDeleted),
    },
    {
      title: SUBJECT_TEXT.progress,
      key: 'progress',
      kind: 'status',
      width: 100,
      render: (_: unknown, row) => progressOf(row, 84),
    },
    ...otherBase.map(baseColumn),
    ...crf.map((column): DataColumn<SubjectRecordRow> => ({
      title: crfTitle(column),
      key: `crf:${column.key}`,
      width: CRF_COLUMN_WIDTH,
      render: (_: unknown, row) => crfValue(column, row),
    })),
    { title: SUBJECT_TEXT.creater, dataIndex: 'creater', width: 84 },
    { title: SUBJECT_TEXT.createTime, dataIndex: 'createTime', kind: 'datetime', width: 150 },
    actionsColumn(actions),
  ];
}

/** The widest layout whose table fits `available` pixels (every layout but the card has the 序号 column). */
export function subjectLayout(available: number, input: SubjectColumnsInput): SubjectLayout {
  if (available <= 0) return 'wide';
  for (const layout of ['wide', 'compact'] as const) {
    if (tableWidth(subjectColumns(layout, input), { index: true }) <= available) return layout;
  }
  return 'card';
}
