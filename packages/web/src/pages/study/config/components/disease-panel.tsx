import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Checkbox, Empty, Form, Input, Modal, Space, Spin, Table, Tag, type TableColumnsType } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { crfApi, diseaseApi, type CrfOption, type Disease } from '../../../../api/study.api';
import { FormDialog } from '../../../../components/form-dialog';
import { AuthButton, AuthRemoveButton, AuthSwitch } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { STUDY_CONFIG_TEXT } from '../../../../locales/study-config.zh-CN';
import { Section } from './section';
import { useOpenCount } from '../../components/use-open-count';
import { queryKeys } from '../../../../api/query-keys';

const PERM = 'study:config';

type DiseaseDialogState = { mode: 'add' } | { mode: 'edit'; disease: Disease };

interface DiseaseFields {
  diseaseName: string;
  diseaseCode: string;
}

function DiseaseDialogBody({
  studyId,
  state,
  onClose,
}: {
  studyId: number;
  state: DiseaseDialogState | null;
  onClose: () => void;
}) {
  const [form] = Form.useForm<DiseaseFields>();

  const save = useListMutation({
    mutationFn: (values: DiseaseFields): Promise<{ msg: string }> => {
      const body = { diseaseName: values.diseaseName.trim(), diseaseCode: values.diseaseCode.trim() };
      return state?.mode === 'edit'
        ? diseaseApi.update({ ...body, id: state.disease.id })
        : diseaseApi.add({ ...body, studyId });
    },
    invalidate: [queryKeys.studyDisease.all(), queryKeys.study.all()],
    onSuccess: onClose,
  });

  return (
    <FormDialog
      open={Boolean(state)}
      title={state?.mode === 'edit' ? STUDY_CONFIG_TEXT.editDisease : STUDY_CONFIG_TEXT.addDisease}
      width={480}
      form={form}
      name="study-disease-dialog"
      labelWidth="84px"
      initialValues={
        state?.mode === 'edit'
          ? { diseaseName: state.disease.diseaseName, diseaseCode: state.disease.diseaseCode }
          : undefined
      }
      saving={save.isPending}
      onSave={(values) => save.mutate(values)}
      onClose={onClose}
    >
      <Form.Item
        label={STUDY_CONFIG_TEXT.diseaseName}
        name="diseaseName"
        rules={[{ required: true, whitespace: true, message: STUDY_CONFIG_TEXT.diseaseNameRequired }]}
      >
        <Input maxLength={50} placeholder={STUDY_CONFIG_TEXT.diseaseName} />
      </Form.Item>
      <Form.Item
        label={STUDY_CONFIG_TEXT.diseaseCode}
        name="diseaseCode"
        rules={[{ required: true, whitespace: true, message: STUDY_CONFIG_TEXT.diseaseCodeRequired }]}
      >
        <Input maxLength={30} placeholder={STUDY_CONFIG_TEXT.diseaseCode} />
      </Form.Item>
    </FormDialog>
  );
}

/** Which CRFs one disease uses (multi-disease mode). */
function DiseaseCrfsDialog({
  disease,
  crfs,
  onClose,
}: {
  disease: Disease | null;
  crfs: CrfOption[];
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [picked, setPicked] = useState<number[] | null>(null);
  const [openedFor, setOpenedFor] = useState(disease);
  if (openedFor !== disease) {
    setOpenedFor(disease);
    setPicked(null);
  }

  const stored = useQuery({
    queryKey: queryKeys.studyDisease.crfs(disease?.id),
    enabled: Boolean(disease),
    queryFn: () => diseaseApi.crfs(disease!.id).then((res) => res.data),
  });
  const value = picked ?? stored.data ?? [];

  const save = useMutation({
    mutationFn: () => diseaseApi.setCrfs(disease!.id, value),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: queryKeys.studyDisease.all() });
      onClose();
    },
  });

  return (
    <Modal
      open={Boolean(disease)}
      title={STUDY_CONFIG_TEXT.setCrfsTitle(disease?.diseaseName ?? '')}
      onCancel={onClose}
      onOk={() => save.mutate()}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      confirmLoading={save.isPending}
      width={520}
      destroyOnHidden
    >
      <Spin spinning={stored.isLoading}>
        {crfs.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
        ) : (
          <Checkbox.Group
            style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
            value={value}
            options={crfs.map((crf) => ({ value: crf.id, label: crf.title }))}
            onChange={(next) => setPicked(next as number[])}
          />
        )}
      </Spin>
    </Modal>
  );
}

/** 病种: the multi-disease switch, the study's diseases and, in multi-disease mode, each disease's CRFs. */
export function DiseasePanel({ studyId }: { studyId: number }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<DiseaseDialogState | null>(null);
  const [crfTarget, setCrfTarget] = useState<Disease | null>(null);

  const diseases = useQuery({
    queryKey: queryKeys.studyDisease.list(studyId),
    queryFn: () => diseaseApi.get(studyId).then((res) => res.data),
  });
  const crfs = useQuery({
    queryKey: queryKeys.crf.options(studyId),
    queryFn: () => crfApi.options(studyId).then((res) => res.data),
  });
  const crfTitle = new Map((crfs.data ?? []).map((crf) => [crf.id, crf.title]));
  const multi = diseases.data?.multiDisease ?? false;

  const done = (res: { msg: string }) => {
    void message.success(res.msg || MSG.ok);
    void queryClient.invalidateQueries({ queryKey: queryKeys.studyDisease.all() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.study.all() });
  };
  const setMulti = useMutation({ mutationFn: (on: boolean) => diseaseApi.setMulti(studyId, on), onSuccess: done });
  const remove = useMutation({ mutationFn: (id: number) => diseaseApi.remove(id), onSuccess: done });

  const columns: TableColumnsType<Disease> = [
    { title: STUDY_CONFIG_TEXT.diseaseName, dataIndex: 'diseaseName', width: 200 },
    { title: STUDY_CONFIG_TEXT.diseaseCode, dataIndex: 'diseaseCode', width: 140 },
    ...(multi
      ? [
          {
            title: STUDY_CONFIG_TEXT.diseaseCrfs,
            key: 'crfs',
            render: (_: unknown, disease: Disease) =>
              disease.crfVO?.length ? (
                <Space size={[4, 4]} wrap>
                  {disease.crfVO.map((id) => (
                    <Tag key={id}>{crfTitle.get(id) ?? id}</Tag>
                  ))}
                </Space>
              ) : (
                <span className="study-section-hint">{STUDY_CONFIG_TEXT.noCrfs}</span>
              ),
          },
        ]
      : []),
    {
      title: COMMON_TEXT.actions,
      key: 'actions',
      width: multi ? 220 : 140,
      render: (_: unknown, disease) => (
        <Space size={0}>
          {multi && (
            <AuthButton code={PERM} type="link" size="small" onClick={() => setCrfTarget(disease)}>
              {STUDY_CONFIG_TEXT.setCrfs}
            </AuthButton>
          )}
          <AuthButton code={PERM} type="link" size="small" onClick={() => setDialog({ mode: 'edit', disease })}>
            {COMMON_TEXT.edit}
          </AuthButton>
          <AuthRemoveButton
            code={PERM}
            title={STUDY_CONFIG_TEXT.confirmRemoveDisease(disease.diseaseName)}
            onConfirm={() => remove.mutateAsync(disease.id)}
          />
        </Space>
      ),
    },
  ];

  return (
    <>
      <Section title={STUDY_CONFIG_TEXT.multiDisease} hint={STUDY_CONFIG_TEXT.multiDiseaseHint}>
        <AuthSwitch
          code={PERM}
          aria-label={STUDY_CONFIG_TEXT.multiDisease}
          checked={multi}
          loading={setMulti.isPending || diseases.isLoading}
          onChange={(on) => setMulti.mutate(on)}
        />
      </Section>
      <Section
        title={STUDY_CONFIG_TEXT.tabDisease}
        extra={
          <AuthButton
            code={PERM}
            type="primary"
            icon={<PlusOutlined aria-hidden />}
            onClick={() => setDialog({ mode: 'add' })}
          >
            {STUDY_CONFIG_TEXT.addDisease}
          </AuthButton>
        }
      >
        <Table<Disease>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={diseases.data?.diseases ?? []}
          loading={diseases.isFetching}
          pagination={false}
        />
      </Section>
      <DiseaseDialog studyId={studyId} state={dialog} onClose={() => setDialog(null)} />
      <DiseaseCrfsDialog disease={crfTarget} crfs={crfs.data ?? []} onClose={() => setCrfTarget(null)} />
    </>
  );
}

/** The dialog's body mounts afresh at each opening, with a new form holding its initial values. */
function DiseaseDialog(props: Parameters<typeof DiseaseDialogBody>[0]) {
  const opened = useOpenCount(Boolean(props.state));
  return <DiseaseDialogBody key={opened} {...props} />;
}
