import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Empty, Radio, Space, Table, TreeSelect, type TableColumnsType } from 'antd';
import { ArrowDownOutlined, ArrowUpOutlined, ImportOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { stageApi, type CrfStageSummary, type StageCrf } from '../../../api/study.api';
import { AuthButton, AuthRemoveButton, useAccess } from '../../../components/permission';
import { useRouteId } from '../../../hooks/use-route-id';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { CRF_STAGE_TEXT } from '../../../locales/crf-stage.zh-CN';
import { BackLinkPage } from '../components/study-header';
import { StudyScope } from '../components/study-scope';
import { useStageTree } from '../crf-stage/use-stage-tree';
import { ImportCrfsDialog, REPEAT_OPTIONS, type ImportTarget } from '../crf-stage/components/import-crfs-dialog';
import { RepeatTag } from '../crf-stage/components/repeat-tag';
import { reorder, sortCrfs, stageOptions } from '../crf-stage/stage-tree';
import '../study.css';
import { queryKeys } from '../../../api/query-keys';

const PERM = 'study:crfStage';

/** The forms of one stage: how each is filled in (single or repeatable), their order, import and removal. */
function StageSettings({ stage }: { stage: CrfStageSummary }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { can } = useAccess();
  const [importing, setImporting] = useState<ImportTarget | null>(null);

  const crfsQuery = useQuery({
    queryKey: queryKeys.crfStage.crfs(stage.id),
    queryFn: () => stageApi.crfs(stage.id).then((res) => res.data),
  });
  const crfs = useMemo(() => sortCrfs(crfsQuery.data), [crfsQuery.data]);

  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.crfStage.all() });
  const done = (res: { msg: string }) => {
    void message.success(res.msg || MSG.ok);
    refresh();
  };

  const setRepeat = useMutation({
    mutationFn: ({ crfId, repeat }: { crfId: number; repeat: 0 | 1 }) =>
      stageApi.updateCrf({ crfStageId: stage.id, crfId, repeat }),
    onSuccess: done,
  });
  const move = useMutation({
    mutationFn: async ({ crfId, delta }: { crfId: number; delta: -1 | 1 }) => {
      for (const change of reorder(crfs, (crf) => crf.crfId, crfId, delta)) {
        await stageApi.updateCrf({ crfStageId: stage.id, crfId: change.key, orderNum: change.orderNum });
      }
    },
    onSettled: refresh,
  });
  const removeCrf = useMutation({
    mutationFn: (crfId: number) => stageApi.removeCrf(stage.id, crfId),
    onSuccess: done,
  });

  const columns: TableColumnsType<StageCrf> = [
    { title: CRF_STAGE_TEXT.forms, dataIndex: 'title' },
    {
      title: CRF_STAGE_TEXT.repeat,
      dataIndex: 'repeat',
      width: 220,
      render: (repeat: 0 | 1, crf) =>
        can(PERM) ? (
          <Radio.Group
            aria-label={`${CRF_STAGE_TEXT.repeat} ${crf.title}`}
            optionType="button"
            buttonStyle="solid"
            size="small"
            value={repeat === 1 ? 1 : 0}
            options={REPEAT_OPTIONS}
            disabled={setRepeat.isPending}
            onChange={(event) => setRepeat.mutate({ crfId: crf.crfId, repeat: event.target.value as 0 | 1 })}
          />
        ) : (
          <RepeatTag repeat={repeat} />
        ),
    },
    { title: CRF_STAGE_TEXT.orderNum, dataIndex: 'orderNum', width: 70, align: 'center' },
    {
      title: COMMON_TEXT.actions,
      key: 'actions',
      width: 180,
      render: (_: unknown, crf, index) => (
        <Space size={0}>
          <AuthButton
            code={PERM}
            type="link"
            size="small"
            aria-label={`${CRF_STAGE_TEXT.moveUp} ${crf.title}`}
            icon={<ArrowUpOutlined aria-hidden />}
            disabled={index === 0 || move.isPending}
            onClick={() => move.mutate({ crfId: crf.crfId, delta: -1 })}
          />
          <AuthButton
            code={PERM}
            type="link"
            size="small"
            aria-label={`${CRF_STAGE_TEXT.moveDown} ${crf.title}`}
            icon={<ArrowDownOutlined aria-hidden />}
            disabled={index === crfs.length - 1 || move.isPending}
            onClick={() => move.mutate({ crfId: crf.crfId, delta: 1 })}
          />
          <AuthRemoveButton
            code={PERM}
            title={CRF_STAGE_TEXT.confirmRemoveCrf(crf.title)}
            label={CRF_STAGE_TEXT.removeCrf}
            onConfirm={() => removeCrf.mutateAsync(crf.crfId)}
          />
        </Space>
      ),
    },
  ];

  return (
    <>
      <div className="page-toolbar" style={{ alignItems: 'center' }}>
        <AuthButton
          code={PERM}
          type="primary"
          icon={<ImportOutlined aria-hidden />}
          onClick={() => setImporting({ stageId: stage.id, stageName: stage.name, present: crfs })}
        >
          {CRF_STAGE_TEXT.importForms}
        </AuthButton>
        <span className="study-section-hint" style={{ margin: 0 }}>
          {CRF_STAGE_TEXT.repeatHint}
        </span>
      </div>
      <Table<StageCrf>
        rowKey="crfId"
        columns={columns}
        dataSource={crfs}
        loading={crfsQuery.isFetching}
        pagination={false}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={CRF_STAGE_TEXT.noForms} /> }}
      />
      <ImportCrfsDialog studyId={stage.studyId} target={importing} onClose={() => setImporting(null)} />
    </>
  );
}

/** Without a stage in the address: pick one of the chosen study's stages. */
function StagePicker({ studyId }: { studyId: number }) {
  const navigate = useNavigate();
  const { tree, isLoading } = useStageTree(studyId);
  if (!isLoading && tree.length === 0) return <Empty description={CRF_STAGE_TEXT.empty} />;
  return (
    <Space>
      <span>{CRF_STAGE_TEXT.pickStage}</span>
      <TreeSelect
        aria-label={CRF_STAGE_TEXT.pickStage}
        style={{ width: 320 }}
        loading={isLoading}
        treeDefaultExpandAll
        treeData={stageOptions(tree)}
        placeholder={CRF_STAGE_TEXT.pickStagePlaceholder}
        onChange={(id: number) => void navigate(`/study/crfStage/set/${id}?studyId=${studyId}`)}
      />
    </Space>
  );
}

/** ECRF设置 (STUDY-03, STUDY-05): the settings of one stage, /study/crfStage/set/:id (id optional). */
export default function CrfStageSetPage() {
  const navigate = useNavigate();
  const stageId = useRouteId('id');
  const hasId = stageId !== null;

  const stage = useQuery({
    queryKey: queryKeys.crfStage.detail(stageId),
    enabled: hasId,
    queryFn: () => stageApi.get(stageId!).then((res) => res.data),
  });

  if (!hasId) {
    return <StudyScope title={CRF_STAGE_TEXT.setTitle}>{(study) => <StagePicker studyId={study.id} />}</StudyScope>;
  }

  return (
    <BackLinkPage
      query={stage}
      backLabel={CRF_STAGE_TEXT.backToStages}
      onBack={() => void navigate(stage.data ? `/study/crfStage?studyId=${stage.data.studyId}` : '/study/crfStage')}
      title={stage.data ? `${CRF_STAGE_TEXT.setTitle} · ${stage.data.name}` : CRF_STAGE_TEXT.setTitle}
    >
      {(data) => <StageSettings stage={data} />}
    </BackLinkPage>
  );
}
