import { useMemo, useState, type Key } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Form, Input, type TreeDataNode } from 'antd';
import { MSG, REMARK_MAX } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { studyRoleApi, type PermissionNode, type StudyRole } from '../../../../api/study.api';
import { CheckTree } from '../../../../components/check-tree';
import { FormDialog } from '../../../../components/form-dialog';
import { useSaveMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { STUDY_ROLE_TEXT } from '../../../../locales/study-role.zh-CN';
import { checkedFromPermissions, permissionsFromChecked } from '../permission-tree';
import { useOpenCount } from '../../components/use-open-count';

export interface StudyRoleDialogState {
  mode: 'add' | 'edit';
  role?: StudyRole;
}

interface RoleFields {
  roleName: string;
  remark?: string | null;
}

function toTreeData(nodes: readonly PermissionNode[], root = true): TreeDataNode[] {
  return nodes.map((node) => ({
    key: node.key,
    title: node.title,
    // An empty heading (CRF权限 before any CRF is uploaded) grants nothing to tick.
    disableCheckbox: root && !node.children?.length,
    children: node.children?.length ? toTreeData(node.children, false) : undefined,
  }));
}

/** 新增/修改项目角色: name, remark and the permission tree (功能权限, CRF权限). */
function StudyRoleDialogBody({
  studyId,
  state,
  onClose,
}: {
  studyId: number;
  state: StudyRoleDialogState | null;
  onClose: () => void;
}) {
  const [form] = Form.useForm<RoleFields>();
  const role = state?.mode === 'edit' ? state.role : undefined;
  // The user's own ticks; until there are any, the tree shows what the role holds.
  const [edited, setEdited] = useState<Key[] | null>(null);

  const tree = useQuery({
    queryKey: queryKeys.studyRole.tree(studyId),
    enabled: Boolean(state),
    queryFn: () => studyRoleApi.tree(studyId).then((res) => res.data),
  });

  const nodes = useMemo(() => tree.data ?? [], [tree.data]);
  const treeData = useMemo(() => toTreeData(nodes), [nodes]);
  const checked = edited ?? checkedFromPermissions(nodes, role?.permissions ?? []);

  const save = useSaveMutation({
    editing: Boolean(role),
    create: (body: RoleFields & { permissions: string[] }) => studyRoleApi.add({ ...body, studyId }),
    update: (body: RoleFields & { permissions: string[] }) => studyRoleApi.update({ ...body, id: role!.id }),
    invalidate: [queryKeys.studyRole.all()],
    onSuccess: onClose,
  });

  return (
    <FormDialog
      open={Boolean(state)}
      title={role ? STUDY_ROLE_TEXT.editTitle : STUDY_ROLE_TEXT.addTitle}
      width={720}
      form={form}
      name="study-role-dialog"
      labelWidth="84px"
      initialValues={role ? { roleName: role.roleName, remark: role.remark } : undefined}
      loading={tree.isLoading}
      saving={save.isPending}
      onSave={(values) =>
        save.mutate({
          ...values,
          roleName: values.roleName.trim(),
          permissions: permissionsFromChecked(nodes, checked),
        })
      }
      onClose={onClose}
    >
      <Form.Item
        label={STUDY_ROLE_TEXT.name}
        name="roleName"
        rules={[{ required: true, whitespace: true, message: STUDY_ROLE_TEXT.nameRequired }]}
      >
        <Input maxLength={30} placeholder={STUDY_ROLE_TEXT.name} />
      </Form.Item>
      <Form.Item label={STUDY_ROLE_TEXT.permissions}>
        <CheckTree
          treeData={treeData}
          checkedKeys={checked}
          maxHeight={360}
          onCheck={(keys) => setEdited(Array.isArray(keys) ? keys : keys.checked)}
        />
      </Form.Item>
      <Form.Item label={COMMON_TEXT.remark} name="remark" rules={[{ max: REMARK_MAX, message: MSG.remarkTooLong }]}>
        <Input.TextArea maxLength={REMARK_MAX} showCount rows={2} placeholder={COMMON_TEXT.remark} />
      </Form.Item>
    </FormDialog>
  );
}

/** The dialog's body mounts afresh at each opening, with a new form holding its initial values. */
export function StudyRoleDialog(props: Parameters<typeof StudyRoleDialogBody>[0]) {
  const opened = useOpenCount(Boolean(props.state));
  return <StudyRoleDialogBody key={opened} {...props} />;
}
