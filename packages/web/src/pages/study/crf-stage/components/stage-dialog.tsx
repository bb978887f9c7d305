import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, InputNumber, Modal } from 'antd';
import { MSG } from '@ecrf/core';
import { stageApi, type CrfStage } from '../../../../api/study.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { CRF_STAGE_TEXT } from '../../../../locales/crf-stage.zh-CN';
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

  let title: string = CRF_STAGE_TEXT.editTitle;
  if (state?.mode === 'add') {
    title = state.parent ? CRF_STAGE_TEXT.addChildTitle(state.parent.name) : CRF_STAGE_TEXT.addTitle;
  }

  return (
    <Modal
      open={Boolean(state)}
      title={title}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
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
          label={CRF_STAGE_TEXT.name}
          name="name"
          rules={[{ required: true, whitespace: true, message: CRF_STAGE_TEXT.nameRequired }]}
        >
          <Input maxLength={50} placeholder={CRF_STAGE_TEXT.name} />
        </Form.Item>
        <Form.Item label={CRF_STAGE_TEXT.orderNum} name="orderNum">
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
