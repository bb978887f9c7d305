import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, Select, Space, Table, type TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { buildTree, MSG } from '@ecrf/core';
import { deptApi, type Dept } from '../../../api/system.api';
import { AuthButton, AuthRemoveButton } from '../../../components/permission';
import { T } from '../../../locales/zh-CN';
import { compact } from '../../../utils/compact';
import { formatDate } from '../../../utils/format-date';
import { deptListKey, STATUS_OPTIONS, StatusTag, withoutEmptyChildren } from '../sys-shared';
import { DeptDialog, type DeptDialogState } from './components/dept-dialog';
import { FilterButtons } from '../../../components/filter-buttons';

interface Filters {
  deptName?: string;
  status?: number;
}

/** 机构管理: the department tree (SYS-03, SYS-04). */
export default function OrganizationPage() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const [dialog, setDialog] = useState<DeptDialogState | null>(null);

  const list = useQuery({
    queryKey: [...deptListKey, filters],
    queryFn: () => deptApi.list(compact(filters)).then((res) => res.data),
  });

  const tree = useMemo(
    () =>
      withoutEmptyChildren(
        buildTree(list.data ?? [], (d) => d.deptId),
        (a, b) => (a.orderNum ?? 0) - (b.orderNum ?? 0),
      ),
    [list.data],
  );

  const remove = useMutation({
    mutationFn: (deptId: number) => deptApi.remove(deptId),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: ['dept'] });
    },
  });

  const columns: TableColumnsType<Dept> = [
    { title: T.dept.name, dataIndex: 'deptName', key: 'deptName' },
    { title: T.dept.leader, dataIndex: 'leader', width: 120 },
    { title: T.dept.phone, dataIndex: 'phone', width: 150 },
    { title: T.dept.orderNum, dataIndex: 'orderNum', width: 100, align: 'center' },
    {
      title: T.common.status,
      dataIndex: 'status',
      width: 90,
      render: (status: number) => <StatusTag status={status} />,
    },
    { title: T.common.createTime, dataIndex: 'createTime', width: 180, render: (value: string) => formatDate(value) },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 240,
      render: (_: unknown, dept) => (
        <Space size={0}>
          <AuthButton
            code="sys:dept:add"
            type="link"
            size="small"
            onClick={() => setDialog({ mode: 'add', parentId: dept.deptId })}
          >
            {T.dept.addChild}
          </AuthButton>
          <AuthButton code="sys:dept:edit" type="link" size="small" onClick={() => setDialog({ mode: 'edit', dept })}>
            {T.common.edit}
          </AuthButton>
          <AuthRemoveButton
            code="sys:dept:remove"
            title={T.common.confirmRemove}
            onConfirm={() => remove.mutateAsync(dept.deptId)}
          />
        </Space>
      ),
    },
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.dept.title}</h2>
      <Form
        form={filterForm}
        name="dept-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(values)}
      >
        <Form.Item label={T.dept.filterName} name="deptName">
          <Input allowClear placeholder={T.dept.filterName} style={{ width: 200 }} />
        </Form.Item>
        <Form.Item label={T.common.status} name="status">
          <Select allowClear options={STATUS_OPTIONS} placeholder={T.common.selectPlaceholder} style={{ width: 140 }} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div className="page-toolbar">
        <AuthButton
          code="sys:dept:add"
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setDialog({ mode: 'add' })}
        >
          {T.common.add}
        </AuthButton>
      </div>
      <Table<Dept>
        key={tree.length ? 'loaded' : 'empty'}
        rowKey="deptId"
        columns={columns}
        dataSource={tree}
        loading={list.isFetching}
        pagination={false}
        expandable={{ defaultExpandAllRows: true }}
      />
      <DeptDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
