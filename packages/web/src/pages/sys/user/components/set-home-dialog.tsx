import { useMutation } from '@tanstack/react-query';
import { App, Form, Modal, Select } from 'antd';
import { MSG } from '@ecrf/core';
import { userApi } from '../../../../api/system.api';
import { appRoutes } from '../../../../router';
import { T } from '../../../../locales/zh-CN';

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
      title={T.user.setHome}
      open={open}
      destroyOnHidden
      okText={T.common.ok}
      cancelText={T.common.cancel}
      confirmLoading={save.isPending}
      onCancel={() => onClose(false)}
      onOk={() => form.submit()}
    >
      <p>{T.user.setHomeHint(userIds.length)}</p>
      <Form form={form} name="set-home" layout="vertical" onFinish={(values) => save.mutate(values.perm)}>
        <Form.Item label={T.user.homePage} name="perm" rules={[{ required: true, message: T.user.homeRequired }]}>
          <Select options={HOME_OPTIONS} placeholder={T.common.selectPlaceholder} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
