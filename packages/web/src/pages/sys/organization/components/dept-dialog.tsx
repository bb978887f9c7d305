import { useEffect } from 'react';
import { Col, Form, Input, InputNumber, Modal, Radio, Row, TreeSelect } from 'antd';
import { STATUS } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { deptApi, type Dept, type DeptBody } from '../../../../api/system.api';
import { useSaveMutation } from '../../../../components/table-page';
import { T } from '../../../../locales/zh-CN';
import { STATUS_OPTIONS, useDeptTree } from '../../sys-shared';

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

  const submit = async () => {
    // Failed rules are already shown under their fields.
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    save.mutate({ ...values, parentId: values.parentId ?? ROOT_PARENT, deptId: editingId });
  };

  return (
    <Modal
      open={Boolean(state)}
      title={state?.mode === 'edit' ? T.dept.editTitle : T.dept.addTitle}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={T.common.ok}
      cancelText={T.common.cancel}
      confirmLoading={save.isPending}
      width={640}
      destroyOnHidden
    >
      <Form form={form} name="dept-dialog" labelCol={{ flex: '96px' }} wrapperCol={{ flex: 1 }} labelWrap>
        <Row gutter={16}>
          <Col span={24}>
            <Form.Item label={T.dept.parent} name="parentId">
              <TreeSelect
                treeData={[{ value: ROOT_PARENT, title: T.dept.parentRoot, children: treeData }]}
                treeDefaultExpandAll
                placeholder={T.common.selectPlaceholder}
              />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item
              label={T.dept.name}
              name="deptName"
              rules={[{ required: true, whitespace: true, message: T.dept.nameRequired }]}
            >
              <Input maxLength={30} placeholder={T.dept.name} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item label={T.dept.orderNum} name="orderNum">
              <InputNumber min={0} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item label={T.dept.leader} name="leader">
              <Input maxLength={20} placeholder={T.dept.leader} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item label={T.dept.phone} name="phone">
              <Input maxLength={20} placeholder={T.dept.phone} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item label={T.common.status} name="status">
              <Radio.Group options={STATUS_OPTIONS} />
            </Form.Item>
          </Col>
        </Row>
      </Form>
    </Modal>
  );
}
