import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { buildTree } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { deptApi, type Dept } from '../../../api/system.api';
import { AuthButton } from '../../../components/permission';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../components/table-page';
import { T } from '../../../locales/zh-CN';
import { STATUS_OPTIONS, StatusTag, withoutEmptyChildren } from '../sys-shared';
import { DeptDialog, type DeptDialogState } from './components/dept-dialog';

interface Filters {
  deptName?: string;
  status?: number;
}

/** Departments in sibling order, as the tree the flat list describes. */
const toTree = (rows: Dept[]) =>
  withoutEmptyChildren(
    buildTree(rows, (d) => d.deptId),
    (a, b) => (a.orderNum ?? 0) - (b.orderNum ?? 0),
  );

/** 机构管理: the department tree (SYS-03, SYS-04). */
export default function OrganizationPage() {
  const [dialog, setDialog] = useState<DeptDialogState | null>(null);
  const remove = useListMutation({
    mutationFn: (deptId: number) => deptApi.remove(deptId),
    invalidate: [queryKeys.dept.all()],
  });

  const columns: PageColumn<Dept>[] = [
    // The tree's indentation and expander sit in this column.
    { title: T.dept.name, dataIndex: 'deptName', minWidth: 220, search: { label: T.dept.filterName, width: 200 } },
    { title: T.dept.leader, dataIndex: 'leader', width: 110 },
    { title: T.dept.phone, dataIndex: 'phone', width: 130 },
    { title: T.dept.orderNum, dataIndex: 'orderNum', kind: 'number' },
    {
      title: T.common.status,
      dataIndex: 'status',
      kind: 'status',
      width: 80,
      search: { options: STATUS_OPTIONS, width: 140 },
      render: (status: number) => <StatusTag status={status} />,
    },
    { title: T.common.createTime, dataIndex: 'createTime', kind: 'datetime' },
    actionsColumn<Dept>([
      {
        key: 'addChild',
        label: T.dept.addChild,
        code: 'sys:dept:add',
        onClick: (dept) => setDialog({ mode: 'add', parentId: dept.deptId }),
      },
      {
        key: 'edit',
        label: T.common.edit,
        code: 'sys:dept:edit',
        onClick: (dept) => setDialog({ mode: 'edit', dept }),
      },
      {
        key: 'remove',
        label: T.common.remove,
        code: 'sys:dept:remove',
        danger: true,
        confirm: () => ({ title: T.common.confirmRemove }),
        onClick: (dept) => remove.mutateAsync(dept.deptId),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.dept.title}</h2>
      <TablePage<Dept, Filters>
        name="dept-filter"
        rowKey="deptId"
        columns={columns}
        queryKey={queryKeys.dept.lists()}
        fetchAll={(filters) => deptApi.list(filters).then((res) => res.data)}
        select={toTree}
        paged={false}
        table={{ expandable: { defaultExpandAllRows: true } }}
        toolbar={
          <AuthButton
            code="sys:dept:add"
            type="primary"
            icon={<PlusOutlined aria-hidden />}
            onClick={() => setDialog({ mode: 'add' })}
          >
            {T.common.add}
          </AuthButton>
        }
      />
      <DeptDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
