import { useMutation } from '@tanstack/react-query';
import { App, Form, Modal, Select } from 'antd';
import { MSG } from '@ecrf/core';
import { userApi } from '../../../../api/system.api';
import { appRoutes } from '../../../../router';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { USER_TEXT } from '../../../../locales/user.zh-CN';

/** Pages a user can start on: main-layout routes without parameters. */
const HOME_OPTIONS = appRoutes
  .filter((route) => route.layout === 'main' && !route.path.includes(':') && !route.path.includes('*'))
  .map((route) => ({ value: route.name, label: `${route.title}（${route.path}）` }));

interface Props {
  userIds: number[];
  open: boolean;
  onClose: (saved: boolean) => void;
}

/** 设置首页: the page the selected users land on after sign-in (SYS-24). */
export function SetHomeDialog({ userIds, open, onClose }: Props) {
  const { message } = App.useApp();
  const [form] = Form.useForm<{ perm: string }>();
  const save = useMutation({
    mutationFn: (perm: string) => userApi.setHome(perm, userIds),
    onSuccess: () => {
      void message.success(MSG.ok);
      onClose(true);
    },
  });

  return (
    <Modal
      title={USER_TEXT.setHome}
      open={open}
      destroyOnHidden
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      confirmLoading={save.isPending}
      onCancel={() => onClose(false)}
      onOk={() => form.submit()}
    >
      <p>{USER_TEXT.setHomeHint(userIds.length)}</p>
      <Form form={form} name="set-home" layout="vertical" onFinish={(values) => save.mutate(values.perm)}>
        <Form.Item label={USER_TEXT.homePage} name="perm" rules={[{ required: true, message: USER_TEXT.homeRequired }]}>
          <Select
            showSearch={{ optionFilterProp: 'label' }}
            options={HOME_OPTIONS}
            placeholder={COMMON_TEXT.selectPlaceholder}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
