import { useEffect, useMemo } from 'react';
import { Col, Form, Input, InputNumber, Radio, TreeSelect } from 'antd';
import { STATUS, type MenuType } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { menuApi, type MenuBody, type MenuRow } from '../../../../api/system.api';
import { useSaveMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { MENU_TEXT } from '../../../../locales/menu.zh-CN';
import { type TreeSelectNode } from '../../sys-shared';
import { menuHidden, menuIconName, menuTitle } from '../menu-row';
import { StatusField, SysFormDialog } from '../../sys-form-dialog';

export interface MenuDialogState {
  mode: 'add' | 'edit';
  menu?: MenuRow;
  parent?: MenuRow;
}

const ROOT_PARENT = 0;

export const MENU_TYPE_OPTIONS: { value: MenuType; label: string }[] = [
  { value: 'M', label: MENU_TEXT.typeM },
  { value: 'C', label: MENU_TEXT.typeC },
  { value: 'F', label: MENU_TEXT.typeF },
];

export const LEVEL_OPTIONS = [
  { value: 0, label: MENU_TEXT.level0 },
  { value: 1, label: MENU_TEXT.level1 },
];

const HIDDEN_OPTIONS = [
  { value: false, label: COMMON_TEXT.no },
  { value: true, label: COMMON_TEXT.yes },
];

function parentOptions(tree: readonly MenuRow[], disabledId?: number, disabled = false): TreeSelectNode[] {
  // Buttons never hold children, so they are not offered as parents.
  return tree
    .filter((row) => row.type !== 'F')
    .map((row) => {
      const off = disabled || row.menuId === disabledId;
      const children = row.children?.length ? parentOptions(row.children, disabledId, off) : [];
      return {
        value: row.menuId,
        title: menuTitle(row),
        disabled: off,
        children: children.length ? children : undefined,
      };
    });
}

interface MenuDialogProps {
  state: MenuDialogState | null;
  tree: readonly MenuRow[];
  onClose: () => void;
}

export function MenuDialog({ state, tree, onClose }: MenuDialogProps) {
  const [form] = Form.useForm<MenuBody>();
  const type = Form.useWatch('type', form);
  const editingId = state?.mode === 'edit' ? state.menu?.menuId : undefined;
  const treeData = useMemo(
    () => [{ value: ROOT_PARENT, title: MENU_TEXT.parentRoot, children: parentOptions(tree, editingId) }],
    [tree, editingId],
  );

  useEffect(() => {
    if (!state) return;
    form.resetFields();
    const menu = state.menu;
    if (state.mode === 'edit' && menu) {
      form.setFieldsValue({
        parentId: menu.parentId,
        type: menu.type,
        title: menuTitle(menu),
        icon: menuIconName(menu),
        code: menu.code,
        perms: menu.perms,
        path: menu.path,
        level: menu.level,
        orderNum: menu.orderNum,
        hidden: menuHidden(menu),
        status: menu.status,
      });
    } else {
      const parent = state.parent;
      form.setFieldsValue({
        parentId: parent?.menuId ?? ROOT_PARENT,
        type: parent ? (parent.type === 'C' ? 'F' : 'C') : 'M',
        level: parent?.level ?? 0,
        orderNum: 0,
        hidden: false,
        status: STATUS.normal,
      });
    }
  }, [state, form]);

  const save = useSaveMutation({
    editing: editingId !== undefined,
    create: (body: MenuBody) => menuApi.add(body),
    update: (body: MenuBody) => menuApi.update(body),
    // A menu change changes the side menu too.
    invalidate: [queryKeys.menu.all(), queryKeys.account.routers()],
    onSuccess: onClose,
  });

  const isButton = type === 'F';

  return (
    <SysFormDialog
      open={Boolean(state)}
      title={state?.mode === 'edit' ? MENU_TEXT.editTitle : MENU_TEXT.addTitle}
      width={720}
      form={form}
      name="menu-dialog"
      saving={save.isPending}
      onSave={(values) => save.mutate({ ...values, parentId: values.parentId ?? ROOT_PARENT, menuId: editingId })}
      onClose={onClose}
    >
      <Col span={24}>
        <Form.Item label={MENU_TEXT.parent} name="parentId">
          <TreeSelect
            treeData={treeData}
            treeDefaultExpandedKeys={[ROOT_PARENT]}
            placeholder={COMMON_TEXT.selectPlaceholder}
          />
        </Form.Item>
      </Col>
      <Col span={24}>
        <Form.Item label={MENU_TEXT.type} name="type">
          <Radio.Group options={MENU_TYPE_OPTIONS} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          label={MENU_TEXT.name}
          name="title"
          rules={[{ required: true, whitespace: true, message: MENU_TEXT.nameRequired }]}
        >
          <Input maxLength={50} placeholder={MENU_TEXT.name} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          label={MENU_TEXT.code}
          name="code"
          rules={[{ required: true, whitespace: true, message: MENU_TEXT.codeRequired }]}
        >
          <Input maxLength={100} placeholder={isButton ? 'sys:user:add' : 'sys.user'} />
        </Form.Item>
      </Col>
      {!isButton && (
        <Col span={12}>
          <Form.Item label={MENU_TEXT.icon} name="icon">
            <Input maxLength={50} placeholder={MENU_TEXT.icon} />
          </Form.Item>
        </Col>
      )}
      <Col span={12}>
        <Form.Item label={MENU_TEXT.perms} name="perms">
          <Input maxLength={100} placeholder="sys:org:user" />
        </Form.Item>
      </Col>
      {!isButton && (
        <Col span={12}>
          <Form.Item label={MENU_TEXT.path} name="path">
            <Input maxLength={200} placeholder="/sys/user" />
          </Form.Item>
        </Col>
      )}
      <Col span={12}>
        <Form.Item label={MENU_TEXT.level} name="level">
          <Radio.Group options={LEVEL_OPTIONS} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={MENU_TEXT.orderNum} name="orderNum">
          <InputNumber min={0} style={{ width: '100%' }} />
        </Form.Item>
      </Col>
      {!isButton && (
        <Col span={12}>
          <Form.Item label={MENU_TEXT.hidden} name="hidden">
            <Radio.Group options={HIDDEN_OPTIONS} />
          </Form.Item>
        </Col>
      )}
      <StatusField />
    </SysFormDialog>
  );
}
