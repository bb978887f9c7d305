import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Form, Input, Modal, Popconfirm, Radio, Select, Space, message } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { NOTICE_TARGETS, type NoticeTarget } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { studyApi } from '../../../api/study.api';
import { roleApi } from '../../../api/system.api';
import { PagedTable } from '../../../components/paged-table';
import { AuthButton, useAccess } from '../../../components/permission';
import { formatDate } from '../../../utils/format-date';
import { noticeAdminApi, type NoticeAdminRow, type NoticeBody } from './notice.api';
import { NOTICE } from './texts';

const LIST = ['notices', 'manage'] as const;

/**
 * 通知公告 (/sys/notice): administrators publish notices for all users, the users of one system role or the staff
 * of one study; a published notice reaches its signed-in readers at once (the top bar's bell).
 */
export default function NoticePage() {
  const [title, setTitle] = useState('');
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<NoticeAdminRow | 'new' | null>(null);
  const client = useQueryClient();
  const { can } = useAccess();

  const refresh = () => {
    void client.invalidateQueries({ queryKey: LIST });
    // The administrator may be a reader too: the bell reads again.
    void client.invalidateQueries({ queryKey: queryKeys.notices.all() });
  };
  const remove = useMutation({
    mutationFn: (row: NoticeAdminRow) => noticeAdminApi.remove(row.noticeId),
    onSuccess: (res) => {
      void message.success(res.msg);
      refresh();
    },
  });

  const targetText = (row: NoticeAdminRow) =>
    row.targetType === 'all' ? NOTICE.targets.all : `${NOTICE.targets[row.targetType]}：${row.targetName ?? ''}`;

  return (
    <div className="page-card">
      <h2 className="page-title">{NOTICE.title}</h2>
      <Space wrap style={{ marginBottom: 16 }}>
        <Input
          aria-label={NOTICE.searchTitle}
          placeholder={NOTICE.searchTitle}
          style={{ width: 220 }}
          value={title}
          allowClear
          onChange={(e) => setTitle(e.target.value)}
          onPressEnter={() => setSearch(title.trim())}
        />
        <Button type="primary" onClick={() => setSearch(title.trim())}>
          {NOTICE.search}
        </Button>
        <AuthButton code="sys:notice:add" icon={<PlusOutlined />} onClick={() => setEditing('new')}>
          {NOTICE.add}
        </AuthButton>
      </Space>
      <PagedTable<NoticeAdminRow>
        rowKey="noticeId"
        queryKey={LIST}
        filters={{ search }}
        fetchPage={(paging) => noticeAdminApi.list({ ...paging, title: search || undefined }).then((res) => res.data)}
        columns={[
          { title: NOTICE.columnTitle, dataIndex: 'title', width: 220 },
          { title: NOTICE.content, dataIndex: 'content', width: 320, ellipsis: true },
          { title: NOTICE.target, key: 'target', width: 200, render: (_: unknown, row) => targetText(row) },
          { title: NOTICE.readCount, dataIndex: 'readCount', width: 100 },
          {
            title: NOTICE.createTime,
            dataIndex: 'createTime',
            width: 170,
            render: (value: string) => formatDate(value),
          },
          {
            title: NOTICE.actions,
            key: 'actions',
            width: 150,
            fixed: 'right',
            render: (_: unknown, row) => (
              <Space size={0}>
                <Button type="link" disabled={!can('sys:notice:edit')} onClick={() => setEditing(row)}>
                  {NOTICE.edit}
                </Button>
                <Popconfirm
                  title={NOTICE.removeConfirm}
                  onConfirm={() => remove.mutate(row)}
                  disabled={!can('sys:notice:remove')}
                >
                  <Button type="link" danger disabled={!can('sys:notice:remove')}>
                    {NOTICE.remove}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {editing && (
        <NoticeDialog
          row={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            refresh();
          }}
        />
      )}
    </div>
  );
}

function NoticeDialog(props: { row: NoticeAdminRow | null; onClose: () => void; onDone: () => void }) {
  const [form] = Form.useForm<NoticeBody>();
  const targetType = Form.useWatch('targetType', form) ?? props.row?.targetType ?? 'all';
  const roles = useQuery({
    queryKey: ['notices', 'roles'],
    enabled: targetType === 'role',
    queryFn: () => roleApi.list({ pageNum: 1, pageSize: 999999 }).then((res) => res.data.list),
  });
  const studies = useQuery({
    queryKey: ['notices', 'studies'],
    enabled: targetType === 'study',
    queryFn: () => studyApi.allMine().then((res) => res.data.list),
  });
  const save = useMutation({
    mutationFn: (body: NoticeBody) =>
      props.row ? noticeAdminApi.update(props.row.noticeId, body) : noticeAdminApi.add(body),
    onSuccess: (res) => {
      void message.success(res.msg);
      props.onDone();
    },
  });
  return (
    <Modal
      open
      width={600}
      title={props.row ? NOTICE.editTitle : NOTICE.addTitle}
      okText={NOTICE.confirm}
      cancelText={NOTICE.cancel}
      confirmLoading={save.isPending}
      onCancel={props.onClose}
      onOk={() =>
        void form.validateFields().then((v) =>
          save.mutate({
            title: v.title.trim(),
            content: (v.content ?? '').trim(),
            targetType: v.targetType,
            targetRoleId: v.targetType === 'role' ? v.targetRoleId : null,
            targetStudyId: v.targetType === 'study' ? v.targetStudyId : null,
          }),
        )
      }
    >
      <Form
        form={form}
        layout="vertical"
        initialValues={{
          title: props.row?.title ?? '',
          content: props.row?.content ?? '',
          targetType: props.row?.targetType ?? 'all',
          targetRoleId: props.row?.targetRoleId ?? undefined,
          targetStudyId: props.row?.targetStudyId ?? undefined,
        }}
      >
        <Form.Item
          name="title"
          label={NOTICE.columnTitle}
          rules={[{ required: true, whitespace: true, message: NOTICE.titleRequired }]}
        >
          <Input maxLength={100} />
        </Form.Item>
        <Form.Item name="content" label={NOTICE.content}>
          <Input.TextArea rows={5} maxLength={2000} showCount />
        </Form.Item>
        <Form.Item name="targetType" label={NOTICE.target}>
          <Radio.Group
            options={NOTICE_TARGETS.map(([value]) => ({ value, label: NOTICE.targets[value as NoticeTarget] }))}
          />
        </Form.Item>
        {targetType === 'role' && (
          <Form.Item
            name="targetRoleId"
            label={NOTICE.role}
            rules={[{ required: true, message: NOTICE.rolePlaceholder }]}
          >
            <Select
              placeholder={NOTICE.rolePlaceholder}
              loading={roles.isLoading}
              options={(roles.data ?? []).map((r) => ({ value: r.roleId, label: r.roleName }))}
            />
          </Form.Item>
        )}
        {targetType === 'study' && (
          <Form.Item
            name="targetStudyId"
            label={NOTICE.study}
            rules={[{ required: true, message: NOTICE.studyPlaceholder }]}
          >
            <Select
              placeholder={NOTICE.studyPlaceholder}
              loading={studies.isLoading}
              options={(studies.data ?? []).map((s) => ({ value: s.id, label: s.studyName }))}
            />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
