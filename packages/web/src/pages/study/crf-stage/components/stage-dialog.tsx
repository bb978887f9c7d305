import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, InputNumber, Modal } from 'antd';
import { MSG } from '@ecrf/core';
import { stageApi, type CrfStage } from '../../../../api/study.api';
import { T } from '../../../../locales/zh-CN';
import { useOpenCount } from '../../components/use-open-count';
import { queryKeys } from '../../../../api/query-keys';

export type StageDialogState =
  { mode: 'add'; parent: CrfStage | null; orderNum: number } | { mode: 'edit'; stage: CrfStage };

interface StageFields {
  name: string;
  orderNum?: number | null;
}

/** 新增阶段 (top level or under a stage) and 修改阶段. */
function StageDialogBody({
  studyId,
  state,
  onClose,
}: {
  studyId: number;
  state: StageDialogState | null;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<StageFields>();

  const save = useMutation({
    mutationFn: (values: StageFields) => {
      const orderNum = values.orderNum ?? undefined;
      const name = values.name.trim();
      return state?.mode === 'edit'
        ? stageApi.update({ id: state.stage.id, name, orderNum })
        : stageApi.add({
            studyId,
            parentId: state?.mode === 'add' && state.parent ? state.parent.id : 0,
            name,
            orderNum,
          });
    },
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: queryKeys.crfStage.all() });
      onClose();
    },
  });

  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (values) save.mutate(values);
  };

  let title: string = T.crfStage.editTitle;
  if (state?.mode === 'add') title = state.parent ? T.crfStage.addChildTitle(state.parent.name) : T.crfStage.addTitle;

  return (
    <Modal
      open={Boolean(state)}
      title={title}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={T.common.ok}
      cancelText={T.common.cancel}
      confirmLoading={save.isPending}
      width={480}
      destroyOnHidden
    >
      <Form
        form={form}
        initialValues={
          state?.mode === 'edit'
            ? { name: state.stage.name, orderNum: state.stage.orderNum }
            : { orderNum: state?.orderNum }
        }
        name="crf-stage-dialog"
        labelCol={{ flex: '84px' }}
        wrapperCol={{ flex: 1 }}
      >
        <Form.Item
          label={T.crfStage.name}
          name="name"
          rules={[{ required: true, whitespace: true, message: T.crfStage.nameRequired }]}
        >
          <Input maxLength={50} placeholder={T.crfStage.name} />
        </Form.Item>
        <Form.Item label={T.crfStage.orderNum} name="orderNum">
          <InputNumber min={0} precision={0} style={{ width: '100%' }} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** The dialog's body mounts afresh at each opening, with a new form holding its initial values. */
export function StageDialog(props: Parameters<typeof StageDialogBody>[0]) {
  const opened = useOpenCount(Boolean(props.state));
  return <StageDialogBody key={opened} {...props} />;
}
