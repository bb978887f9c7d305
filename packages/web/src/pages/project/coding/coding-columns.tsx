import type { ReactNode } from 'react';
import { Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { CodedItemRow, CodingState } from '../../../api/coding.api';
import { CODING_TEXT as t } from '../../../locales/coding.zh-CN';
import { formatDate } from '../../../utils/format-date';

/** A code with its name, as a coder reads it: 头痛（10019211）. */
const named = (name: unknown, code: unknown): string =>
  name || code ? `${String(name ?? '')}（${String(code ?? '')}）` : '';

/** One field of a row's coding when the coding is of the given kind. */
const field = (row: CodedItemRow, kind: 'meddra' | 'whodrug', render: (c: Record<string, unknown>) => string) =>
  row.coding && row.coding.kind === kind ? render(row.coding) : '';

/** Who did it and when, on two lines (coder with 编码时间, approver with 审核时间). */
const byWhen = (who: string | null, when: string | null, auto = false): ReactNode =>
  who || when || auto ? (
    <>
      <div>{who ?? (auto ? t.system : '')}</div>
      {when && <div className="coding-when">{formatDate(when)}</div>}
    </>
  ) : null;

/**
 * The coding list's columns (issue 37): where the verbatim came from, the verbatim beside its codes — MedDRA's LLT,
 * PT and primary SOC, WHODrug's drug and ATC, each with its code — the state, and who coded and approved it, when.
 */
export function codingListColumns(actions: ColumnsType<CodedItemRow>[number]): ColumnsType<CodedItemRow> {
  return [
    { title: t.patientCode, dataIndex: 'patientCode' },
    { title: t.site, dataIndex: 'siteName' },
    { title: t.form, dataIndex: 'crfName' },
    { title: t.item, dataIndex: 'itemName' },
    { title: t.verbatim, dataIndex: 'verbatim' },
    { title: 'LLT', key: 'llt', render: (_, r) => field(r, 'meddra', (c) => named(c.lltName, c.lltCode)) },
    { title: 'PT', key: 'pt', render: (_, r) => field(r, 'meddra', (c) => named(c.ptName, c.ptCode)) },
    { title: 'SOC', key: 'soc', render: (_, r) => field(r, 'meddra', (c) => named(c.socName, c.socCode)) },
    { title: t.drug, key: 'drug', render: (_, r) => field(r, 'whodrug', (c) => named(c.drugName, c.drugCode)) },
    {
      title: 'ATC',
      key: 'atc',
      render: (_, r) => field(r, 'whodrug', (c) => [c.atcCode, c.atcText].filter(Boolean).map(String).join(' ')),
    },
    { title: t.state, dataIndex: 'state', render: (s: CodingState) => <Tag>{t.states[s]}</Tag> },
    {
      title: t.coder,
      key: 'coder',
      // An auto-code has no coder: the platform coded it (系统), as the audit trail says.
      render: (_, r) => byWhen(r.codedBy, r.codedAt, r.state !== 'uncoded' && r.codedById === null),
    },
    { title: t.approver, key: 'approver', render: (_, r) => byWhen(r.approvedBy, r.approvedAt) },
    actions,
  ];
}
