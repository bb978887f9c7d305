import { Tag } from 'antd';
import { queryKeys } from '../../../../api/query-keys';
import { randomizationApi, type AllocationSlotRow } from '../../../../api/randomization.api';
import { TablePage, type PageColumn } from '../../../../components/table-page';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';

const t = RANDOMIZATION_TEXT;

/** 随机分配表 (unblinded roles only, as the server allows): the list of the version in force with its use, paged. */
export function AllocationList({
  studyId,
  strata,
  toolbar,
}: {
  studyId: number;
  strata: Array<{ value: string; label: string }>;
  toolbar: React.ReactNode;
}) {
  const columns: PageColumn<AllocationSlotRow>[] = [
    {
      title: t.stratum,
      dataIndex: 'stratumLabel',
      minWidth: 140,
      search: strata.length > 1 ? { name: 'stratum', type: 'select', options: strata, width: 200 } : undefined,
    },
    { title: t.slot, dataIndex: 'slot', kind: 'number' },
    { title: t.block, dataIndex: 'block', kind: 'number' },
    { title: t.blockSize, dataIndex: 'blockSize', kind: 'number' },
    {
      title: t.arm,
      dataIndex: 'armLabel',
      width: 120,
      render: (v: string, row) => `${v}（${row.arm}）`,
      text: (row) => `${row.armLabel}（${row.arm}）`,
    },
    { title: t.kitCode, dataIndex: 'kitCode', width: 130 },
    { title: t.randomizationNo, dataIndex: 'randomizationNo', width: 100 },
    {
      title: t.slotState,
      dataIndex: 'used',
      kind: 'status',
      render: (used: boolean) => (used ? <Tag color="blue">{t.slotUsed}</Tag> : <Tag>{t.slotFree}</Tag>),
    },
  ];
  return (
    <TablePage<AllocationSlotRow, { stratum?: string }>
      name="rand-list-filter"
      rowKey={(row) => `${row.stratum}#${row.slot}`}
      columns={columns}
      toolbar={toolbar}
      queryKey={queryKeys.randomization.list(studyId)}
      fetchPage={(query) => randomizationApi.list({ ...query, studyId }).then((res) => res.data)}
    />
  );
}
