import { useQuery, type QueryKey } from '@tanstack/react-query';
import { Form, Input, Modal, Radio, Select } from 'antd';
import { LOAD_ALL_PAGE_SIZE, NOTICE_TARGETS, type NoticeTarget } from '@ecrf/core';
import { noticeAdminApi, type NoticeAdminRow, type NoticeBody } from '../../../../api/notice.api';
import { queryKeys } from '../../../../api/query-keys';
import { studyApi } from '../../../../api/study.api';
import { roleApi } from '../../../../api/system.api';
import { useSaveMutation } from '../../../../components/table-page';
import { NOTICE_TEXT } from '../../../../locales/notice.zh-CN';

interface NoticeDialogProps {
  /** The notice to change, or null for a new one. */
  row: NoticeAdminRow | null;
  /** The lists that show the notice. */
  invalidate: readonly QueryKey[];
  onClose: () => void;
}

/** 发布公告 / 修改公告: the title, the text and who receives it (everyone, one system role or one study's staff). */
export function NoticeDialog({ row, invalidate, onClose }: NoticeDialogProps) {
  const [form] = Form.useForm<NoticeBody>();
  const targetType = Form.useWatch('targetType', form) ?? row?.targetType ?? 'all';
  const roles = useQuery({
    queryKey: queryKeys.role.options(),
    enabled: targetType === 'role',
    queryFn: () => roleApi.list({ pageNum: 1, pageSize: LOAD_ALL_PAGE_SIZE }).then((res) => res.data.list),
  });
  const studies = useQuery({
    queryKey: queryKeys.study.mine(),
    enabled: targetType === 'study',
    queryFn: () => studyApi.allMine().then((res) => res.data.list),
  });
  const save = useSaveMutation({
    editing: row !== null,
    create: (body: NoticeBody) => noticeAdminApi.add(body),
    update: (body: NoticeBody) => noticeAdminApi.update(row!.noticeId, body),
    invalidate,
    onSuccess: onClose,
  });
  return (
    <Modal
      open
      width={600}
      title={row ? NOTICE_TEXT.editTitle : NOTICE_TEXT.addTitle}
      okText={NOTICE_TEXT.confirm}
      cancelText={NOTICE_TEXT.cancel}
      confirmLoading={save.isPending}
      onCancel={onClose}
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
          title: row?.title ?? '',
          content: row?.content ?? '',
          targetType: row?.targetType ?? 'all',
          targetRoleId: row?.targetRoleId ?? undefined,
          targetStudyId: row?.targetStudyId ?? undefined,
        }}
      >
        <Form.Item
          name="title"
          label={NOTICE_TEXT.columnTitle}
          rules={[{ required: true, whitespace: true, message: NOTICE_TEXT.titleRequired }]}
        >
          <Input maxLength={100} />
        </Form.Item>
        <Form.Item name="content" label={NOTICE_TEXT.content}>
          <Input.TextArea rows={5} maxLength={2000} showCount />
        </Form.Item>
        <Form.Item name="targetType" label={NOTICE_TEXT.target}>
          <Radio.Group
            options={NOTICE_TARGETS.map(([value]) => ({ value, label: NOTICE_TEXT.targets[value as NoticeTarget] }))}
          />
        </Form.Item>
        {targetType === 'role' && (
          <Form.Item
            name="targetRoleId"
            label={NOTICE_TEXT.role}
            rules={[{ required: true, message: NOTICE_TEXT.rolePlaceholder }]}
          >
            <Select
              placeholder={NOTICE_TEXT.rolePlaceholder}
              loading={roles.isLoading}
              options={(roles.data ?? []).map((r) => ({ value: r.roleId, label: r.roleName }))}
            />
          </Form.Item>
        )}
        {targetType === 'study' && (
          <Form.Item
            name="targetStudyId"
            label={NOTICE_TEXT.study}
            rules={[{ required: true, message: NOTICE_TEXT.studyPlaceholder }]}
          >
            <Select
              placeholder={NOTICE_TEXT.studyPlaceholder}
              loading={studies.isLoading}
              options={(studies.data ?? []).map((s) => ({ value: s.id, label: s.studyName }))}
            />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
