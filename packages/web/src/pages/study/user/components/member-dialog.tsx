import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Form, Select, TreeSelect } from 'antd';
import { buildTree } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { personnelApi, studyRoleApi, type SiteRow, type StudyMember } from '../../../../api/study.api';
import { FormDialog } from '../../../../components/form-dialog';
import { useSaveMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { STUDY_USER_TEXT } from '../../../../locales/study-user.zh-CN';
import { useOpenCount } from '../../components/use-open-count';

export interface MemberDialogState {
  mode: 'add' | 'edit';
  member?: StudyMember;
}

interface MemberFields {
  userIds?: number[];
  studyRoleId: number;
  siteIds?: number[];
}

interface SiteNode {
  value: number;
  title: string;
  children?: SiteNode[];
}

type SiteTreeRow = SiteRow & { children?: SiteTreeRow[] };

function toSiteNodes(rows: readonly SiteTreeRow[]): SiteNode[] {
  return [...rows]
    .sort((a, b) => (a.orderNum ?? 0) - (b.orderNum ?? 0))
    .map((row) => ({
      value: row.deptId,
      title: row.deptName,
      children: row.children?.length ? toSiteNodes(row.children) : undefined,
    }));
}

/** 添加项目人员 (several users at once) and 修改项目人员 (role and site of one member). */
function MemberDialogBody({
  studyId,
  state,
  onClose,
}: {
  studyId: number;
  state: MemberDialogState | null;
  onClose: () => void;
}) {
  const [form] = Form.useForm<MemberFields>();
  const member = state?.mode === 'edit' ? state.member : undefined;
  const open = Boolean(state);

  const roles = useQuery({
    queryKey: queryKeys.studyRole.list(studyId),
    enabled: open,
    queryFn: () => studyRoleApi.list(studyId).then((res) => res.data),
  });
  const candidates = useQuery({
    queryKey: queryKeys.studyPersonnel.uncommitted(studyId),
    enabled: open && !member,
    queryFn: () => personnelApi.uncommitted(studyId).then((res) => res.data),
  });
  const sites = useQuery({
    queryKey: queryKeys.studyPersonnel.sites(),
    enabled: open,
    retry: false,
    queryFn: () => personnelApi.sites().then((res) => res.data),
  });
  const siteTree = useMemo(
    () => toSiteNodes(buildTree(sites.data ?? [], (row) => row.deptId) as SiteTreeRow[]),
    [sites.data],
  );

  const save = useSaveMutation({
    editing: Boolean(member),
    create: (values: MemberFields) =>
      personnelApi.add({
        studyId,
        userIds: values.userIds ?? [],
        studyRoleId: values.studyRoleId,
        siteIds: values.siteIds?.length ? values.siteIds : undefined,
      }),
    update: (values: MemberFields) =>
      personnelApi.update({ id: member!.id, studyRoleId: values.studyRoleId, siteIds: values.siteIds ?? [] }),
    // The member count of the study and of its roles change with the staff.
    invalidate: [queryKeys.studyPersonnel.all(), queryKeys.studyRole.all(), queryKeys.study.all()],
    onSuccess: onClose,
  });

  return (
    <FormDialog
      open={open}
      title={member ? STUDY_USER_TEXT.editTitle(member.name) : STUDY_USER_TEXT.addTitle}
      width={600}
      form={form}
      name="study-member-dialog"
      labelWidth="84px"
      initialValues={member ? { studyRoleId: member.studyRoleId, siteIds: member.siteIds } : undefined}
      saving={save.isPending}
      onSave={(values) => save.mutate(values)}
      onClose={onClose}
    >
      {!member && (
        <Form.Item
          label={STUDY_USER_TEXT.users}
          name="userIds"
          rules={[{ required: true, message: STUDY_USER_TEXT.usersRequired }]}
        >
          <Select
            mode="multiple"
            allowClear
            loading={candidates.isLoading}
            placeholder={STUDY_USER_TEXT.usersPlaceholder}
            notFoundContent={candidates.isLoading ? undefined : STUDY_USER_TEXT.noCandidates}
            showSearch={{ optionFilterProp: 'label' }}
            options={(candidates.data ?? []).map((user) => ({
              value: user.userId,
              label: `${user.name}（${user.userName}）${user.deptName ? ` · ${user.deptName}` : ''}`,
            }))}
          />
        </Form.Item>
      )}
      <Form.Item
        label={STUDY_USER_TEXT.role}
        name="studyRoleId"
        rules={[{ required: true, message: STUDY_USER_TEXT.roleRequired }]}
      >
        <Select
          loading={roles.isLoading}
          placeholder={COMMON_TEXT.selectPlaceholder}
          options={(roles.data ?? []).map((role) => ({ value: role.id, label: role.roleName }))}
        />
      </Form.Item>
      {siteTree.length > 0 && (
        <Form.Item label={STUDY_USER_TEXT.site} name="siteIds" extra={STUDY_USER_TEXT.siteHint}>
          <TreeSelect
            multiple
            allowClear
            treeDefaultExpandAll
            treeData={siteTree}
            placeholder={COMMON_TEXT.selectPlaceholder}
          />
        </Form.Item>
      )}
    </FormDialog>
  );
}

/** The dialog's body mounts afresh at each opening, with a new form holding its initial values. */
export function MemberDialog(props: Parameters<typeof MemberDialogBody>[0]) {
  const opened = useOpenCount(Boolean(props.state));
  return <MemberDialogBody key={opened} {...props} />;
}
