import { useEffect } from 'react';
import { Col, Form, Input, InputNumber, TreeSelect } from 'antd';
import { STATUS } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { deptApi, type Dept, type DeptBody } from '../../../../api/system.api';
import { useSaveMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { DEPT_TEXT } from '../../../../locales/dept.zh-CN';
import { useDeptTree } from '../../sys-shared';
import { StatusField, SysFormDialog } from '../../sys-form-dialog';

export interface DeptDialogState {
  mode: 'add' | 'edit';
  dept?: Dept;
  parentId?: number;
}

const ROOT_PARENT = 0;

export function DeptDialog({ state, onClose }: { state: DeptDialogState | null; onClose: () => void }) {
  const [form] = Form.useForm<DeptBody>();
  const editingId = state?.mode === 'edit' ? state.dept?.deptId : undefined;
  const { treeData } = useDeptTree(editingId);

  useEffect(() => {
    if (!state) return;
    form.resetFields();
    if (state.mode === 'edit' && state.dept) {
      form.setFieldsValue(state.dept);
    } else {
      form.setFieldsValue({ parentId: state.parentId ?? ROOT_PARENT, orderNum: 0, status: STATUS.normal });
    }
  }, [state, form]);

  const save = useSaveMutation({
    editing: editingId !== undefined,
    create: (body: DeptBody) => deptApi.add(body),
    update: (body: DeptBody) => deptApi.update(body),
    invalidate: [queryKeys.dept.all()],
    onSuccess: onClose,
  });

  return (
    <SysFormDialog
      open={Boolean(state)}
      title={state?.mode === 'edit' ? DEPT_TEXT.editTitle : DEPT_TEXT.addTitle}
      width={640}
      form={form}
      name="dept-dialog"
      saving={save.isPending}
      onSave={(values) => save.mutate({ ...values, parentId: values.parentId ?? ROOT_PARENT, deptId: editingId })}
      onClose={onClose}
    >
      <Col span={24}>
        <Form.Item label={DEPT_TEXT.parent} name="parentId">
          <TreeSelect
            treeData={[{ value: ROOT_PARENT, title: DEPT_TEXT.parentRoot, children: treeData }]}
            treeDefaultExpandAll
            placeholder={COMMON_TEXT.selectPlaceholder}
          />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item
          label={DEPT_TEXT.name}
          name="deptName"
          rules={[{ required: true, whitespace: true, message: DEPT_TEXT.nameRequired }]}
        >
          <Input maxLength={30} placeholder={DEPT_TEXT.name} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={DEPT_TEXT.orderNum} name="orderNum">
          <InputNumber min={0} style={{ width: '100%' }} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={DEPT_TEXT.leader} name="leader">
          <Input maxLength={20} placeholder={DEPT_TEXT.leader} />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item label={DEPT_TEXT.phone} name="phone">
          <Input maxLength={20} placeholder={DEPT_TEXT.phone} />
        </Form.Item>
      </Col>
      <StatusField />
    </SysFormDialog>
  );
}
