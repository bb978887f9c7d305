import { Button, Table, Tag, type TableColumnsType } from 'antd';
import type { ImpactFinding, ImpactKind } from '../../../../api/amendment.api';
import { AMENDMENT_TEXT } from '../../../../locales/amendment.zh-CN';
import { kindLabel } from '../amendment-state';

const KIND_COLOUR: Record<ImpactKind, string> = {
  removed: 'default',
  hidden: 'orange',
  invalid: 'red',
  outOfRange: 'volcano',
  calculation: 'blue',
  converted: 'purple',
};

export interface FindingFilter {
  kind: ImpactKind;
  itemName: string;
}

const keyOf = (finding: FindingFilter) => `${finding.kind}:${finding.itemName}`;

/** 影响明细: per kind and item, how many live records it touches; 查看记录 drills down to them. */
export function ImpactFindings({
  findings,
  current,
  onPick,
}: {
  findings: readonly ImpactFinding[];
  current: FindingFilter | null;
  onPick: (finding: ImpactFinding) => void;
}) {
  const columns: TableColumnsType<ImpactFinding> = [
    {
      title: AMENDMENT_TEXT.findingKind,
      dataIndex: 'kind',
      width: 260,
      render: (kind: ImpactKind) => <Tag color={KIND_COLOUR[kind] ?? 'default'}>{kindLabel(kind)}</Tag>,
    },
    {
      title: AMENDMENT_TEXT.findingItem,
      key: 'item',
      render: (_: unknown, finding) => (
        <>
          {finding.label}
          <span className="amendment-item-name">{finding.itemName}</span>
        </>
      ),
    },
    { title: AMENDMENT_TEXT.findingCount, dataIndex: 'count', width: 100, align: 'right' },
    {
      title: AMENDMENT_TEXT.drillDown,
      key: 'actions',
      width: 110,
      render: (_: unknown, finding) => (
        <Button
          type="link"
          size="small"
          aria-label={`${AMENDMENT_TEXT.drillDown} ${kindLabel(finding.kind)} ${finding.label}`}
          onClick={() => onPick(finding)}
        >
          {AMENDMENT_TEXT.drillDown}
        </Button>
      ),
    },
  ];
  return (
    <Table<ImpactFinding>
      size="small"
      aria-label={AMENDMENT_TEXT.findings}
      rowKey={keyOf}
      columns={columns}
      dataSource={[...findings]}
      pagination={false}
      locale={{ emptyText: AMENDMENT_TEXT.noFindings }}
      rowClassName={(finding) => (current && keyOf(finding) === keyOf(current) ? 'ant-table-row-selected' : '')}
    />
  );
}
