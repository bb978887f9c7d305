import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { Alert, App, Space, Tag } from 'antd';
import { followApi, type FollowPlanRow } from '../../../../api/follow.api';
import { queryKeys } from '../../../../api/query-keys';
import { ApiError } from '../../../../api/request';
import {
  actionsColumn,
  TablePage,
  useListMutation,
  type PageColumn,
  type RowAction,
} from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { FOLLOW_TEXT } from '../../../../locales/follow.zh-CN';
import { FOLLOW_DRAFT_TEXT } from '../../../../locales/follow-draft.zh-CN';
import { StudyAuthButton } from '../../components/study-auth-button';
import { useProjectStudy } from '../../use-project-study';
import { DraftImpactDialog } from './components/draft-impact-dialog';
import { PlanDialog, type PlanDialogState } from './components/plan-dialog';

const t = FOLLOW_TEXT;
const PLAN = 'btn:business.follow.plan';

/**
 * A production study (上线) edits its plans through drafts (issue 36); a study answer without `mode` (a server
 * before issue 36) is taken as in 测试, where plans are edited directly as before.
 */
export function editsThroughDrafts(study: object | null | undefined): boolean {
  return (study as { mode?: unknown } | null | undefined)?.mode === 'production';
}

/**
 * 随访计划 (FOLLOW-01, FOLLOW-08..11): the study's plans; a dialog edits a plan and its ordered visits. In a
 * production study an edit is saved as the plan's draft (草稿), whose impact is read (查看影响) before it is
 * published (发布, named as an amendment) or discarded (放弃草稿).
 */
export default function FollowPlanPage() {
  const { studyId, study, can } = useProjectStudy();
  const { modal } = App.useApp();
  const [dialog, setDialog] = useState<PlanDialogState | null>(null);
  const [impactOf, setImpactOf] = useState<{ id: number; planName: string } | null>(null);
  const remove = useListMutation({
    mutationFn: ({ id, removePending }: { id: number; removePending: boolean }) =>
      followApi.removePlan(id, removePending),
    invalidate: [queryKeys.follow.all()],
  });

  if (studyId === null) return null;
  const mayEdit = can(PLAN);
  const drafts = editsThroughDrafts(study);
  const d = FOLLOW_DRAFT_TEXT;

  // FOLLOW-11: a plan with pending visits is removed only when the person confirms they go with it.
  const removePlan = async (row: FollowPlanRow) => {
    try {
      await remove.mutateAsync({ id: row.id, removePending: false });
    } catch (err) {
      const pending = err instanceof ApiError ? (err.data as { pendingRecords?: number } | null)?.pendingRecords : 0;
      if (!pending) throw err;
      modal.confirm({
        title: t.removePendingTitle,
        content: t.removePending(pending),
        okButtonProps: { danger: true },
        onOk: () => remove.mutateAsync({ id: row.id, removePending: true }),
      });
    }
  };

  // 修改 of a production study's plan opens its draft (the dialog says so); 查看影响 once a draft is saved.
  const draftActions: RowAction<FollowPlanRow>[] = [
    {
      key: 'impact',
      label: d.viewImpact,
      allowed: mayEdit,
      hidden: (row) => !row.hasDraft,
      onClick: (row) => setImpactOf({ id: row.id, planName: row.planName }),
    },
  ];

  const columns: PageColumn<FollowPlanRow>[] = [
    {
      title: t.planName,
      dataIndex: 'planName',
      minWidth: 160,
      search: { width: 200 },
      render: (name: string, row: FollowPlanRow) => (
        <Space size={4}>
          {name}
          {row.hasDraft && <Tag color="orange">{d.draftTag}</Tag>}
        </Space>
      ),
      text: (row) => (row.hasDraft ? `${row.planName} ${d.draftTag}` : row.planName),
    },
    { title: t.visitCount, dataIndex: 'visitCount', kind: 'number' },
    {
      title: t.visits,
      dataIndex: 'visitNames',
      minWidth: 220,
      render: (names: string[]) => names.join('、'),
      text: (row) => row.visitNames.join('、'),
    },
    // On a narrow screen 备注, then 修改时间, give way to the plan's visits and its actions (查看影响 in production).
    { title: t.remark, dataIndex: 'remark', minWidth: 120, hideOrder: 1 },
    { title: t.updateBy, dataIndex: 'updateBy', width: 100 },
    { title: t.updateTime, dataIndex: 'updateTime', kind: 'datetime', hideOrder: 2 },
    actionsColumn<FollowPlanRow>([
      {
        key: 'edit',
        label: COMMON_TEXT.edit,
        allowed: mayEdit,
        onClick: (row) => setDialog({ mode: 'edit', id: row.id }),
      },
      // A production study's plan with a draft: 查看影响 (which publishes or discards).
      ...(drafts ? draftActions : []),
      {
        key: 'remove',
        label: COMMON_TEXT.remove,
        allowed: mayEdit,
        danger: true,
        confirm: (row) => ({ title: t.confirmRemovePlan(row.planName) }),
        onClick: (row) => removePlan(row),
      },
    ]),
  ];

  return (
    <div className="page-card">
      <h2 className="page-title">{t.planTitle}</h2>
      {drafts && <Alert type="info" showIcon title={d.banner} style={{ marginBottom: 12 }} />}
      <TablePage<FollowPlanRow, { planName?: string }>
        name="follow-plan-filter"
        rowKey="id"
        columns={columns}
        queryKey={queryKeys.follow.plans(studyId)}
        fetchPage={(query) => followApi.plans({ ...query, studyId }).then((res) => res.data)}
        toolbar={
          <StudyAuthButton
            allowed={mayEdit}
            type="primary"
            icon={<PlusOutlined aria-hidden />}
            onClick={() => setDialog({ mode: 'add' })}
          >
            {t.addPlan}
          </StudyAuthButton>
        }
      />
      <PlanDialog
        studyId={studyId}
        diseases={study?.diseases ?? []}
        state={dialog}
        drafts={drafts}
        onClose={() => setDialog(null)}
      />
      <DraftImpactDialog studyId={studyId} plan={impactOf} mayEdit={mayEdit} onClose={() => setImpactOf(null)} />
    </div>
  );
}
