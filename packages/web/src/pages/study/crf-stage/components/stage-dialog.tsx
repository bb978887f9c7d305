import { Form, Input, InputNumber } from 'antd';
import { stageApi, type CrfStage } from '../../../../api/study.api';
import { FormDialog } from '../../../../components/form-dialog';
import { useListMutation } from '../../../../components/table-page';
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
  const [form] = Form.useForm<StageFields>();

  const save = useListMutation({
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
    invalidate: [queryKeys.crfStage.all()],
    onSuccess: onClose,
  });

  let title: string = CRF_STAGE_TEXT.editTitle;
  if (state?.mode === 'add') {
    title = state.parent ? CRF_STAGE_TEXT.addChildTitle(state.parent.name) : CRF_STAGE_TEXT.addTitle;
  }

  return (
    <FormDialog
      open={Boolean(state)}
      title={title}
      width={480}
      form={form}
      name="crf-stage-dialog"
      labelWidth="84px"
      initialValues={
        state?.mode === 'edit'
          ? { name: state.stage.name, orderNum: state.stage.orderNum }
          : { orderNum: state?.orderNum }
      }
      saving={save.isPending}
      onSave={(values) => save.mutate(values)}
      onClose={onClose}
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
    </FormDialog>
  );
}

/** The dialog's body mounts afresh at each opening, with a new form holding its initial values. */
export function StageDialog(props: Parameters<typeof StageDialogBody>[0]) {
  const opened = useOpenCount(Boolean(props.state));
  return <StageDialogBody key={opened} {...props} />;
}
