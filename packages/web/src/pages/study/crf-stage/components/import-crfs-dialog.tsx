import { useQuery } from '@tanstack/react-query';
import { Form, Radio, Select, Typography } from 'antd';
import { crfApi, stageApi, type StageCrf } from '../../../../api/study.api';
import { FormDialog } from '../../../../components/form-dialog';
import { useListMutation } from '../../../../components/table-page';
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

  const save = useListMutation({
    mutationFn: (values: ImportFields) =>
      stageApi.importCrfs({ crfStageId: target!.stageId, crfIds: values.crfIds, repeat: values.repeat }),
    invalidate: [queryKeys.crfStage.all()],
    onSuccess: onClose,
  });

  return (
    <FormDialog
      open={Boolean(target)}
      title={CRF_STAGE_TEXT.importTitle(target?.stageName ?? '')}
      width={560}
      form={form}
      name="crf-stage-import"
      labelWidth="84px"
      initialValues={{ repeat: 1 }}
      saving={save.isPending}
      onSave={(values) => save.mutate(values)}
      onClose={onClose}
      note={<Typography.Text type="secondary">{CRF_STAGE_TEXT.repeatHint}</Typography.Text>}
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
    </FormDialog>
  );
}

/** The dialog's body mounts afresh at each opening, with a new form holding its initial values. */
export function ImportCrfsDialog(props: Parameters<typeof ImportCrfsDialogBody>[0]) {
  const opened = useOpenCount(Boolean(props.target));
  return <ImportCrfsDialogBody key={opened} {...props} />;
}
