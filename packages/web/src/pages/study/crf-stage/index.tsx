import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Empty, Space, Table, Tag, Tooltip } from 'antd';
import { ArrowDownOutlined, ArrowUpOutlined, PlusOutlined } from '@ant-design/icons';
import { MSG } from '@ecrf/core';
import { useNavigate } from 'react-router';
import { stageApi, type CrfStage, type StageCrf, type Study } from '../../../api/study.api';
import { AuthButton, useAccess } from '../../../components/permission';
import { actionsColumn, tableWidth, toTableColumns, type PageColumn } from '../../../components/table-page';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { CRF_STAGE_TEXT } from '../../../locales/crf-stage.zh-CN';
import { StudyScope } from '../components/study-scope';
import { ImportCrfsDialog, type ImportTarget } from './components/import-crfs-dialog';
import { StageDialog, type StageDialogState } from './components/stage-dialog';
import { nextOrderNum, reorder, siblingsOf, stageIds } from './stage-tree';
import { useStageTree } from './use-stage-tree';
import '../study.css';
import { queryKeys } from '../../../api/query-keys';

const PERM = 'study:crfStage';

function StageForms({ stage, onRemove }: { stage: CrfStage; onRemove: (crf: StageCrf) => void }) {
  const { can } = useAccess();
  const { modal } = App.useApp();
  if (stage.crfs.length === 0) return <span className="study-section-hint">{CRF_STAGE_TEXT.noForms}</span>;
  return (
    <Space size={[4, 4]} wrap>
      {stage.crfs.map((crf) => (
        <Tag
          key={crf.crfId}
          closable={can(PERM)}
          closeIcon={<span aria-label={`${CRF_STAGE_TEXT.removeCrf} ${crf.title}`}>×</span>}
          onClose={(event) => {
            // The tag stays until the removal is confirmed and the tree reloads.
            event.preventDefault();
            modal.confirm({
              title: CRF_STAGE_TEXT.confirmRemoveCrf(crf.title),
              okText: COMMON_TEXT.ok,
              cancelText: COMMON_TEXT.cancel,
              onOk: () => onRemove(crf),
            });
          }}
        >
          {crf.title}
          <span style={{ marginLeft: 4, color: crf.repeat === 1 ? '#0958d9' : '#531dab' }}>
            （{crf.repeat === 1 ? CRF_STAGE_TEXT.repeatSingle : CRF_STAGE_TEXT.repeatMulti}）
          </span>
        </Tag>
      ))}
    </Space>
  );
}

function CrfStages({ study }: { study: Study }) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { tree, isLoading, isFetching } = useStageTree(study.id);
  const [dialog, setDialog] = useState<StageDialogState | null>(null);
  const [importing, setImporting] = useState<ImportTarget | null>(null);
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const expanded = stageIds(tree).filter((id) => !collapsed.has(id));

  const refresh = () => void queryClient.invalidateQueries({ queryKey: queryKeys.crfStage.all() });
  const done = (res: { msg: string }) => {
    void message.success(res.msg || MSG.ok);
    refresh();
  };

  const remove = useMutation({ mutationFn: (id: number) => stageApi.remove(id), onSuccess: done });
  const removeCrf = useMutation({
    mutationFn: ({ stageId, crfId }: { stageId: number; crfId: number }) => stageApi.removeCrf(stageId, crfId),
    onSuccess: done,
  });
  const move = useMutation({
    mutationFn: async ({ stage, delta }: { stage: CrfStage; delta: -1 | 1 }) => {
      const siblings = siblingsOf(tree, stage.id);
      for (const change of reorder(siblings, (s) => s.id, stage.id, delta)) {
        const sibling = siblings.find((s) => s.id === change.key)!;
        await stageApi.update({ id: sibling.id, name: sibling.name, orderNum: change.orderNum });
      }
    },
    onSettled: refresh,
  });

  const moveButton = (stage: CrfStage, delta: -1 | 1) => {
    const siblings = siblingsOf(tree, stage.id);
    const index = siblings.findIndex((s) => s.id === stage.id);
    const label = delta < 0 ? CRF_STAGE_TEXT.moveUp : CRF_STAGE_TEXT.moveDown;
    return (
      <Tooltip title={label}>
        <AuthButton
          code={PERM}
          type="link"
          size="small"
          aria-label={`${label} ${stage.name}`}
          icon={delta < 0 ? <ArrowUpOutlined aria-hidden /> : <ArrowDownOutlined aria-hidden />}
          disabled={(delta < 0 ? index <= 0 : index >= siblings.length - 1) || move.isPending}
          onClick={() => move.mutate({ stage, delta })}
        />
      </Tooltip>
    );
  };

  const pageColumns: PageColumn<CrfStage>[] = [
    // The tree's indentation and expander sit in this column.
    { title: CRF_STAGE_TEXT.name, dataIndex: 'name', minWidth: 200 },
    {
      title: CRF_STAGE_TEXT.orderNum,
      dataIndex: 'orderNum',
      kind: 'status',
      width: 110,
      render: (orderNum: number, stage) => (
        <Space size={0}>
          <span style={{ display: 'inline-block', minWidth: 24, textAlign: 'center' }}>{orderNum}</span>
          {moveButton(stage, -1)}
          {moveButton(stage, 1)}
        </Space>
      ),
    },
    {
      title: CRF_STAGE_TEXT.forms,
      key: 'crfs',
      minWidth: 240,
      ellipsis: false,
      render: (_: unknown, stage) => (
        <StageForms
          stage={stage}
          onRemove={(crf) => removeCrf.mutateAsync({ stageId: stage.id, crfId: crf.crfId }).catch(() => undefined)}
        />
      ),
    },
    actionsColumn<CrfStage>([
      {
        key: 'import',
        label: CRF_STAGE_TEXT.importForms,
        code: PERM,
        onClick: (stage) => setImporting({ stageId: stage.id, stageName: stage.name, present: stage.crfs }),
      },
      {
        key: 'settings',
        label: CRF_STAGE_TEXT.settings,
        onClick: (stage) => void navigate(`/study/crfStage/set/${stage.id}?studyId=${study.id}`),
      },
      {
        key: 'addChild',
        label: CRF_STAGE_TEXT.addChild,
        code: PERM,
        onClick: (stage) => setDialog({ mode: 'add', parent: stage, orderNum: nextOrderNum(stage.children ?? []) }),
      },
      { key: 'edit', label: COMMON_TEXT.edit, code: PERM, onClick: (stage) => setDialog({ mode: 'edit', stage }) },
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        code: PERM,
        danger: true,
        confirm: (stage) => ({
          title: CRF_STAGE_TEXT.confirmRemove(stage.name),
          description: CRF_STAGE_TEXT.removeHint,
        }),
        onClick: (stage) => remove.mutateAsync(stage.id),
      },
    ]),
  ];

  return (
    <>
      <div className="page-toolbar">
        <AuthButton
          code={PERM}
          type="primary"
          icon={<PlusOutlined aria-hidden />}
          onClick={() => setDialog({ mode: 'add', parent: null, orderNum: nextOrderNum(tree) })}
        >
          {CRF_STAGE_TEXT.addTop}
        </AuthButton>
        <span className="study-section-hint" style={{ margin: 0, alignSelf: 'center' }}>
          {CRF_STAGE_TEXT.pageHint}
        </span>
      </div>
      <Table<CrfStage>
        rowKey="id"
        size="middle"
        tableLayout="fixed"
        columns={toTableColumns(pageColumns)}
        dataSource={tree}
        loading={isLoading || isFetching}
        pagination={false}
        scroll={{ x: tableWidth(pageColumns) }}
        expandable={{
          expandedRowKeys: expanded,
          onExpand: (open, stage) =>
            setCollapsed((current) => {
              const next = new Set(current);
              if (open) next.delete(stage.id);
              else next.add(stage.id);
              return next;
            }),
        }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={CRF_STAGE_TEXT.empty} /> }}
      />
      <StageDialog studyId={study.id} state={dialog} onClose={() => setDialog(null)} />
      <ImportCrfsDialog studyId={study.id} target={importing} onClose={() => setImporting(null)} />
    </>
  );
}

/** ECRF阶段 (STUDY-03, STUDY-19..22): the study's visit phases and the forms in each. */
export default function CrfStagePage() {
  return <StudyScope title={CRF_STAGE_TEXT.title}>{(study) => <CrfStages study={study} />}</StudyScope>;
}
