import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Form, Input, Popconfirm, Space, type TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { personnelApi, type Study, type StudyMember } from '../../../api/study.api';
import { PagedTable } from '../../../components/paged-table';
import { Auth, AuthButton } from '../../../components/permission';
import { T } from '../../../locales/zh-CN';
import { compact } from '../../../utils/compact';
import { formatDate } from '../../../utils/format-date';
import { StudyRoutePage } from '../components/study-header';
import { MemberDialog, type MemberDialogState } from './components/member-dialog';
import '../study.css';
import { FilterButtons } from '../../../components/filter-buttons';

interface Filters {
  name?: string;
}

function StudyMembers({ study }: { study: Study }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const [dialog, setDialog] = useState<MemberDialogState | null>(null);

  const remove = useMutation({
    mutationFn: (id: number) => personnelApi.remove(id),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: ['study-personnel'] });
      void queryClient.invalidateQueries({ queryKey: ['study'] });
    },
  });

  const columns: TableColumnsType<StudyMember> = [
    { title: T.studyUser.name, dataIndex: 'name', width: 120 },
    { title: T.studyUser.userName, dataIndex: 'userName', width: 140 },
    { title: T.studyUser.site, dataIndex: 'deptName', width: 180 },
    { title: T.studyUser.role, dataIndex: 'roleName', width: 160 },
    { title: T.studyUser.joinTime, dataIndex: 'createTime', width: 180, render: (value: string) => formatDate(value) },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 160,
      render: (_: unknown, member) => (
        <Space size={0}>
          <AuthButton code="study:user" type="link" size="small" onClick={() => setDialog({ mode: 'edit', member })}>
            {T.studyUser.changeRole}
          </AuthButton>
          <Auth
            code="study:user"
            fallback={
              <AuthButton code="study:user" type="link" size="small" danger>
                {T.studyUser.remove}
              </AuthButton>
            }
          >
            <Popconfirm
              title={T.studyUser.confirmRemove(member.name)}
              description={T.studyUser.removeHint}
              onConfirm={() => remove.mutateAsync(member.id).catch(() => undefined)}
            >
              <Button type="link" size="small" danger>
                {T.studyUser.remove}
              </Button>
            </Popconfirm>
          </Auth>
        </Space>
      ),
    },
  ];

  return (
    <>
      <Form
        form={filterForm}
        name="study-user-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(compact(values))}
      >
        <Form.Item label={T.studyUser.name} name="name">
          <Input allowClear placeholder={T.studyUser.name} style={{ width: 200 }} />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div className="page-toolbar">
        <AuthButton
          code="study:user"
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setDialog({ mode: 'add' })}
        >
          {T.studyUser.add}
        </AuthButton>
      </div>
      <PagedTable<StudyMember>
        rowKey="id"
        columns={columns}
        queryKey={['study-personnel', 'list', study.id]}
        filters={filters}
        fetchPage={(paging) => personnelApi.list({ ...paging, ...filters, studyId: study.id }).then((res) => res.data)}
      />
      <MemberDialog studyId={study.id} state={dialog} onClose={() => setDialog(null)} />
    </>
  );
}

/** 项目人员 (STUDY-04, STUDY-16): who works on the study, with which study role and at which site. */
export default function StudyUserPage() {
  return <StudyRoutePage page={T.studyUser.title}>{(study) => <StudyMembers study={study} />}</StudyRoutePage>;
}
