import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Col, Form, Input, Modal, Radio, Row, Select, Spin, TreeSelect } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import {
  LOAD_ALL_PAGE_SIZE,
  MSG,
  passwordSchema,
  REMARK_MAX,
  SEX,
  STATUS,
  userCreateSchema,
  userNameSchema,
} from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { ApiError } from '../../../../api/request';
import { roleApi, userApi, type UserBody } from '../../../../api/system.api';
import { KeyboardDatePicker } from '../../../../components/keyboard-date-picker';
import { useSaveMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { SECURITY_TEXT } from '../../../../locales/security.zh-CN';
import { SEX_TEXT } from '../../../../locales/sex.zh-CN';
import { USER_TEXT } from '../../../../locales/user.zh-CN';
import { zodRule } from '../../../../utils/zod-rule';
import { useDeptTree } from '../../sys-shared';
import { StatusField } from '../../sys-form-dialog';

export type UserDialogMode = 'add' | 'edit' | 'view';

export interface UserDialogState {
  mode: UserDialogMode;
  userId?: number;
}

const TITLES: Record<UserDialogMode, string> = {
  add: USER_TEXT.addTitle,
  edit: USER_TEXT.editTitle,
  view: USER_TEXT.viewTitle,
};

const SEX_OPTIONS = [
  { value: SEX.male, label: SEX_TEXT.male },
  { value: SEX.female, label: SEX_TEXT.female },
];

/** The rules of @ecrf/core's user schema, so the dialog and the server agree word for word. */
const rules = {
  userName: [zodRule(userNameSchema)],
  password: [zodRule(passwordSchema)],
  name: [zodRule(userCreateSchema.shape.name)],
  deptId: [zodRule(userCreateSchema.shape.deptId)],
  roleIds: [zodRule(userCreateSchema.shape.roleIds)],
  email: [{ type: 'email' as const, message: USER_TEXT.emailInvalid }],
  remark: [{ max: REMARK_MAX, message: MSG.remarkTooLong }],
};

export function UserDialog({ state, onClose }: { state: UserDialogState | null; onClose: () => void }) {
  const { message } = App.useApp();
  const [form] = Form.useForm<UserBody>();
  const mode = state?.mode ?? 'add';
  const userId = state?.userId;
  const { treeData } = useDeptTree();

  const roles = useQuery({
    queryKey: queryKeys.role.options(),
    queryFn: () => roleApi.list({ pageNum: 1, pageSize: LOAD_ALL_PAGE_SIZE }).then((res) => res.data.list),
    enabled: Boolean(state),
  });

  const user = useQuery({
    queryKey: queryKeys.user.detail(userId),
    queryFn: () => userApi.get(userId!).then((res) => res.data),
    enabled: Boolean(state) && userId !== undefined,
  });

  useEffect(() => {
    if (!state) return;
    form.resetFields();
    if (state.mode === 'add') form.setFieldsValue({ sex: SEX.male, status: STATUS.normal, roleIds: [] });
  }, [state, form]);

  useEffect(() => {
    if (state && state.mode !== 'add' && user.data) {
      const { userId: id, userName, name, sex, email, mobile, deptId, roleIds, remark, status, expiresOn } = user.data;
      form.setFieldsValue({
        userId: id,
        userName,
        name,
        sex,
        email,
        mobile,
        deptId: deptId ?? undefined,
        roleIds,
        remark,
        status,
        expiresOn: expiresOn ?? null,
      });
    }
  }, [state, user.data, form]);

  const save = useSaveMutation({
    editing: mode === 'edit',
    create: (body: UserBody): Promise<{ msg: string }> => userApi.add(body),
    update: userApi.update,
    // SYS-15: code 200 shows the server's message as success, anything else as an error.
    invalidate: [queryKeys.user.all()],
    onSuccess: onClose,
    onError: (error) => {
      void message.error(error instanceof ApiError ? error.message : MSG.failed);
    },
  });

  const submit = async () => {
    // Failed rules are already shown under their fields.
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const body: UserBody = {
      ...values,
      userName: values.userName.trim(),
      name: values.name.trim(),
      email: values.email || null,
      remark: values.remark ?? null,
    };
    if (mode === 'edit') body.userId = userId;
    save.mutate(body);
  };

  const viewing = mode === 'view';
  const loading = mode !== 'add' && user.isLoading;

  return (
    <Modal
      open={Boolean(state)}
      title={TITLES[mode]}
      onCancel={onClose}
      width={760}
      destroyOnHidden
      footer={[
        <Button key="cancel" onClick={onClose}>
          {viewing ? COMMON_TEXT.close : COMMON_TEXT.cancel}
        </Button>,
        viewing ? null : (
          <Button key="ok" type="primary" loading={save.isPending} onClick={() => void submit()}>
            {COMMON_TEXT.ok}
          </Button>
        ),
      ]}
    >
      <Spin spinning={loading}>
        <Form
          form={form}
          name="user-dialog"
          labelCol={{ flex: '96px' }}
          wrapperCol={{ flex: 1 }}
          labelWrap
          disabled={viewing}
          autoComplete="off"
        >
          <Row gutter={16}>
            <Col span={12}>
              <Form.Item label={USER_TEXT.userName} name="userName" required rules={rules.userName}>
                <Input maxLength={11} placeholder={USER_TEXT.userName} />
              </Form.Item>
            </Col>
            {mode === 'add' && (
              <Col span={12}>
                <Form.Item label={USER_TEXT.password} name="password" required rules={rules.password}>
                  <Input.Password placeholder={USER_TEXT.password} autoComplete="new-password" />
                </Form.Item>
              </Col>
            )}
            <Col span={12}>
              <Form.Item label={USER_TEXT.name} name="name" required rules={rules.name}>
                <Input maxLength={30} placeholder={USER_TEXT.name} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={USER_TEXT.sex} name="sex">
                <Radio.Group options={SEX_OPTIONS} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={USER_TEXT.email} name="email" rules={rules.email}>
                <Input maxLength={50} placeholder={USER_TEXT.email} />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={USER_TEXT.dept} name="deptId" required rules={rules.deptId}>
                <TreeSelect
                  treeData={treeData}
                  treeDefaultExpandAll
                  allowClear
                  placeholder={COMMON_TEXT.selectPlaceholder}
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item label={USER_TEXT.roles} name="roleIds" required rules={rules.roleIds}>
                <Select
                  mode="multiple"
                  allowClear
                  loading={roles.isLoading}
                  placeholder={COMMON_TEXT.selectPlaceholder}
                  options={(roles.data ?? []).map((role) => ({ value: role.roleId, label: role.roleName }))}
                  optionFilterProp="label"
                />
              </Form.Item>
            </Col>
            <StatusField />
            <Col span={12}>
              {/* 账号有效期: a day (YYYY-MM-DD) in the form, a date in the picker; empty: no end. */}
              <Form.Item
                label={SECURITY_TEXT.expiresOn}
                name="expiresOn"
                tooltip={SECURITY_TEXT.expiresOnHelp}
                getValueProps={(value: string | null | undefined) => ({ value: value ? dayjs(value) : null })}
                normalize={(value: Dayjs | null) => (value ? value.format('YYYY-MM-DD') : null)}
              >
                <KeyboardDatePicker
                  allowClear
                  style={{ width: '100%' }}
                  placeholder={SECURITY_TEXT.expiresOnPlaceholder}
                  aria-label={SECURITY_TEXT.expiresOn}
                />
              </Form.Item>
            </Col>
            <Col span={24}>
              <Form.Item label={USER_TEXT.remark} name="remark" rules={rules.remark}>
                <Input.TextArea maxLength={REMARK_MAX} showCount rows={3} placeholder={USER_TEXT.remark} />
              </Form.Item>
            </Col>
          </Row>
        </Form>
      </Spin>
    </Modal>
  );
}
