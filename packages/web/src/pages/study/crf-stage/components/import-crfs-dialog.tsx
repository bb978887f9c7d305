import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Form, Modal, Radio, Select, Typography } from 'antd';
import { MSG } from '@ecrf/core';
import { crfApi, stageApi, type StageCrf } from '../../../../api/study.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { CRF_STAGE_TEXT } from '../../../../locales/crf-stage.zh-CN';
import { useOpenCount } from '../../components/use-open-count';
import { queryKeys } from '../../../../api/query-keys';

export interface ImportTarget {
  stageId: number;
  stageName: string;
  /** Forms the stage already holds: not offered again. */
  present: readonly StageCrf[];
}

interface ImportFields {
  crfIds: number[];
  repeat: 0 | 1;
}

export const REPEAT_OPTIONS = [
  { value: 1, label: CRF_STAGE_TEXT.repeatSingle },
  { value: 0, label: CRF_STAGE_TEXT.repeatMulti },
];

/** 导入表单: places chosen CRFs of the study in a stage, as single (1) or repeatable (0) forms. */
function ImportCrfsDialogBody({
  studyId,
  target,
  onClose,
}: {
  studyId: number;
  target: ImportTarget | null;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<ImportFields>();

  const crfs = useQuery({
    queryKey: queryKeys.crf.options(studyId),
    enabled: Boolean(target),
    queryFn: () => crfApi.options(studyId).then((res) => res.data),
  });
  const present = new Set((target?.present ?? []).map((crf) => crf.crfId));
  const options = (crfs.data ?? [])
    .filter((crf) => !present.has(crf.id))
    .map((crf) => ({ value: crf.id, label: crf.title }));

  const save = useMutation({
    mutationFn: (values: ImportFields) =>
      stageApi.importCrfs({ crfStageId: target!.stageId, crfIds: values.crfIds, repeat: values.repeat }),
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

  return (
    <Modal
      open={Boolean(target)}
      title={CRF_STAGE_TEXT.importTitle(target?.stageName ?? '')}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      confirmLoading={save.isPending}
      width={560}
      destroyOnHidden
    >
      <Form
        form={form}
        initialValues={{ repeat: 1 }}
        name="crf-stage-import"
        labelCol={{ flex: '84px' }}
        wrapperCol={{ flex: 1 }}
      >
        <Form.Item
          label={CRF_STAGE_TEXT.pickCrfs}
          name="crfIds"
          rules={[{ required: true, message: CRF_STAGE_TEXT.pickCrfsRequired }]}
        >
          <Select
            mode="multiple"
            allowClear
            loading={crfs.isLoading}
            placeholder={COMMON_TEXT.selectPlaceholder}
            options={options}
            showSearch={{ optionFilterProp: 'label' }}
            notFoundContent={crfs.isLoading ? undefined : CRF_STAGE_TEXT.allImported}
          />
        </Form.Item>
        <Form.Item label={CRF_STAGE_TEXT.repeat} name="repeat">
          <Radio.Group options={REPEAT_OPTIONS} />
        </Form.Item>
      </Form>
      <Typography.Text type="secondary">{CRF_STAGE_TEXT.repeatHint}</Typography.Text>
    </Modal>
  );
}

/** The dialog's body mounts afresh at each opening, with a new form holding its initial values. */
export function ImportCrfsDialog(props: Parameters<typeof ImportCrfsDialogBody>[0]) {
  const opened = useOpenCount(Boolean(props.target));
  return <ImportCrfsDialogBody key={opened} {...props} />;
}
