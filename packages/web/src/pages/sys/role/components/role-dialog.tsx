import { useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Col, Form, Input, InputNumber, type TreeDataNode } from 'antd';
import { MSG, REMARK_MAX, STATUS } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { menuApi, roleApi, type RoleBody, type TreeOption } from '../../../../api/system.api';
import { CheckTree } from '../../../../components/check-tree';
import { useSaveMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { ROLE_TEXT } from '../../../../locales/role.zh-CN';
import { checkStateFromLeaves, menuIdsOf, type CheckState } from '../menu-check';
import { StatusField, SysFormDialog } from '../../sys-form-dialog';

export interface RoleDialogState {
  mode: 'add' | 'edit';
  roleId?: number;
}

type RoleFields = Omit<RoleBody, 'menuIds' | 'roleId'>;

function toTreeData(options: readonly TreeOption[]): TreeDataNode[] {
  return options.map((option) => ({
    key: option.id,
    title: option.label,
    children: option.children?.length ? toTreeData(option.children) : undefined,
  }));
}

const EMPTY: CheckState = { checked: [], halfChecked: [] };

export function RoleDialog({ state, onClose }: { state: RoleDialogState | null; onClose: () => void }) {
  const [form] = Form.useForm<RoleFields>();
  // The user's own ticks; until there are any, the tree shows what the role holds.
  const [edited, setEdited] = useState<CheckState | null>(null);
  const [openedFor, setOpenedFor] = useState(state);
  if (openedFor !== state) {
    setOpenedFor(state);
    setEdited(null);
  }
  const roleId = state?.mode === 'edit' ? state.roleId : undefined;

  const menus = useQuery({
    queryKey: queryKeys.menu.roleTree(roleId),
    enabled: Boolean(state),
    queryFn: async () =>
      roleId === undefined
        ? { menus: (await menuApi.treeselect()).data, checkedKeys: [] as number[] }
        : (await menuApi.roleMenuTreeselect(roleId)).data,
  });

  const role = useQuery({
    queryKey: queryKeys.role.detail(roleId),
    enabled: Boolean(state) && roleId !== undefined,
    queryFn: () => roleApi.get(roleId!).then((res) => res.data),
  });

  useEffect(() => {
    if (!state) return;
    form.resetFields();
    if (state.mode === 'add') form.setFieldsValue({ roleSort: 0, status: STATUS.normal });
  }, [state, form]);

  useEffect(() => {
    if (state && role.data) {
      const { roleName, roleKey, roleSort, status, remark } = role.data;
      form.setFieldsValue({ roleName, roleKey, roleSort, status, remark });
    }
  }, [state, role.data, form]);

  const stored = useMemo(
    () => (menus.data ? checkStateFromLeaves(menus.data.menus, menus.data.checkedKeys) : EMPTY),
    [menus.data],
  );
  const check = edited ?? stored;

  const treeData = useMemo(() => toTreeData(menus.data?.menus ?? []), [menus.data]);

  const save = useSaveMutation({
    editing: roleId !== undefined,
    create: (body: RoleBody): Promise<{ msg: string }> => roleApi.add(body),
    update: (body: RoleBody) => roleApi.update(body),
    invalidate: [queryKeys.role.all(), queryKeys.menu.roleTrees()],
    onSuccess: onClose,
  });

  return (
    <SysFormDialog
      open={Boolean(state)}
      title={state?.mode === 'edit' ? ROLE_TEXT.editTitle : ROLE_TEXT.addTitle}
      width={720}
      form={form}
      name="role-dialog"
      loading={menus.isLoading || role.isLoading}
      saving={save.isPending}
      onSave={(values) => save.mutate({ ...values, roleId, menuIds: menuIdsOf(check) })}
      onClose={onClose}
    >
      <Col span={12}>
        <Form.Item
          label={ROLE_TEXT.name}
          name="roleName"
          rules={[{ required: true, whitespace: true, message: ROLE_TEXT.nameRequired }]}
        >
          <Input maxLength={30} placeholder={ROLE_TEXT.name} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          label={ROLE_TEXT.key}
          name="roleKey"
          rules={[{ required: true, whitespace: true, message: ROLE_TEXT.keyRequired }]}
        >
          <Input maxLength={100} placeholder={ROLE_TEXT.key} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={ROLE_TEXT.sort} name="roleSort">
          <InputNumber min={0} style={{ width: '100%' }} />
        </Form.Item>
      </Col>
      <StatusField />
      <Col span={24}>
        <Form.Item label={ROLE_TEXT.menus}>
          <CheckTree
            treeData={treeData}
            checkedKeys={check.checked}
            maxHeight={320}
            onCheck={(checked, info) => {
              const keys = (Array.isArray(checked) ? checked : checked.checked).map(Number);
              setEdited({ checked: keys, halfChecked: (info.halfCheckedKeys ?? []).map(Number) });
            }}
          />
        </Form.Item>
      </Col>
      <Col span={24}>
        <Form.Item label={COMMON_TEXT.remark} name="remark" rules={[{ max: REMARK_MAX, message: MSG.remarkTooLong }]}>
          <Input.TextArea maxLength={REMARK_MAX} showCount rows={2} placeholder={COMMON_TEXT.remark} />
        </Form.Item>
      </Col>
    </SysFormDialog>
  );
}
