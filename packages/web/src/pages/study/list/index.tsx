import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Form, Input, Popconfirm, Select, Space, type TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { studyApi, type Study } from '../../../api/study.api';
import { PagedTable } from '../../../components/paged-table';
import { Auth, AuthButton } from '../../../components/permission';
import { T } from '../../../locales/zh-CN';
import { compact } from '../../../utils/compact';
import { formatDate } from '../../../utils/format-date';
import { STUDY_STATUS_OPTIONS, StudyStatusTag } from '../components/study-status-tag';
import { StudyDialog, type StudyDialogState } from './components/study-dialog';
import '../study.css';
import { FilterButtons } from '../../../components/filter-buttons';

interface Filters {
  studyName?: string;
  status?: number;
}

/** Where each study's setup pages live (platform §2, STUDY-02..04). */
export function studySetupLinks(studyId: number) {
  return [
    { label: T.studyManage.config, to: `/study/config?studyId=${studyId}` },
    { label: T.studyManage.crf, to: `/study/crf?studyId=${studyId}` },
    { label: T.studyManage.crfStage, to: `/study/crfStage?studyId=${studyId}` },
    { label: T.studyManage.role, to: `/study/${studyId}/role` },
    { label: T.studyManage.user, to: `/study/${studyId}/user` },
  ];
}

/** 项目维护 (STUDY-01, STUDY-02, STUDY-07): every study, with create, edit, delete and its setup pages. */
export default function StudyManagePage() {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [filterForm] = Form.useForm<Filters>();
  const [filters, setFilters] = useState<Filters>({});
  const [dialog, setDialog] = useState<StudyDialogState | null>(null);

  const remove = useMutation({
    mutationFn: (id: number) => studyApi.remove(id),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: ['study'] });
    },
  });

  const columns: TableColumnsType<Study> = [
    { title: T.study.name, dataIndex: 'studyName', width: 220, ellipsis: true },
    { title: T.study.code, dataIndex: 'studyCode', width: 140 },
    { title: T.study.principal, dataIndex: 'principal', width: 110 },
    {
      title: T.study.status,
      dataIndex: 'status',
      width: 100,
      render: (status: number) => <StudyStatusTag status={status} />,
    },
    { title: T.study.memberCount, dataIndex: 'memberCount', width: 90, align: 'center' },
    { title: T.study.subjectCount, dataIndex: 'subjectCount', width: 90, align: 'center' },
    { title: T.study.creater, dataIndex: 'creater', width: 110 },
    { title: T.common.createTime, dataIndex: 'createTime', width: 180, render: (value: string) => formatDate(value) },
    {
      title: T.common.actions,
      key: 'actions',
      fixed: 'right',
      width: 300,
      render: (_: unknown, study) => (
        <Space size={0} wrap>
          <AuthButton code="study:edit" type="link" size="small" onClick={() => setDialog({ mode: 'edit', study })}>
            {T.common.edit}
          </AuthButton>
          <Auth
            code="study:remove"
            fallback={
              <AuthButton code="study:remove" type="link" size="small" danger>
                {T.common.remove}
              </AuthButton>
            }
          >
            <Popconfirm
              title={T.studyManage.confirmRemove(study.studyName)}
              description={T.studyManage.removeHint}
              onConfirm={() => remove.mutateAsync(study.id).catch(() => undefined)}
            >
              <Button type="link" size="small" danger>
                {T.common.remove}
              </Button>
            </Popconfirm>
          </Auth>
          {studySetupLinks(study.id).map((link) => (
            <Button key={link.to} type="link" size="small" onClick={() => void navigate(link.to)}>
              {link.label}
            </Button>
          ))}
        </Space>
      ),
    },
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{T.studyManage.title}</h2>
      <Form
        form={filterForm}
        name="study-filter"
        layout="inline"
        className="page-filters"
        onFinish={(values) => setFilters(compact(values))}
      >
        <Form.Item label={T.study.name} name="studyName">
          <Input allowClear placeholder={T.study.name} style={{ width: 200 }} />
        </Form.Item>
        <Form.Item label={T.study.status} name="status">
          <Select
            allowClear
            options={STUDY_STATUS_OPTIONS}
            placeholder={T.common.selectPlaceholder}
            style={{ width: 120 }}
          />
        </Form.Item>
        <FilterButtons form={filterForm} onReset={() => setFilters({})} />
      </Form>
      <div className="page-toolbar">
        <AuthButton
          code="study:add"
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setDialog({ mode: 'add' })}
        >
          {T.common.add}
        </AuthButton>
      </div>
      <PagedTable<Study>
        rowKey="id"
        columns={columns}
        queryKey={['study', 'manage']}
        filters={filters}
        fetchPage={(paging) => studyApi.manageList({ ...paging, ...filters }).then((res) => res.data)}
      />
      <StudyDialog state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
