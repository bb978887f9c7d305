import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { App } from 'antd';
import { followApi, type FollowPlanRow } from '../../../../api/follow.api';
import { queryKeys } from '../../../../api/query-keys';
import { ApiError } from '../../../../api/request';
import { actionsColumn, TablePage, useListMutation, type PageColumn } from '../../../../components/table-page';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { FOLLOW_TEXT } from '../../../../locales/follow.zh-CN';
import { StudyAuthButton } from '../../components/study-auth-button';
import { useProjectStudy } from '../../use-project-study';
import { PlanDialog, type PlanDialogState } from './components/plan-dialog';

const t = FOLLOW_TEXT;
const PLAN = 'btn:business.follow.plan';

/** 随访计划 (FOLLOW-01, FOLLOW-08..11): the study's plans; a dialog edits a plan and its ordered visits. */
export default function FollowPlanPage() {
  const { studyId, study, can } = useProjectStudy();
  const { modal } = App.useApp();
  const [dialog, setDialog] = useState<PlanDialogState | null>(null);
  const remove = useListMutation({
    mutationFn: ({ id, removePending }: { id: number; removePending: boolean }) =>
      followApi.removePlan(id, removePending),
    invalidate: [queryKeys.follow.all()],
  });

  if (studyId === null) return null;
  const mayEdit = can(PLAN);

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

  const columns: PageColumn<FollowPlanRow>[] = [
    { title: t.planName, dataIndex: 'planName', minWidth: 160, search: { width: 200 } },
    { title: t.visitCount, dataIndex: 'visitCount', kind: 'number' },
    {
      title: t.visits,
      dataIndex: 'visitNames',
      minWidth: 220,
      render: (names: string[]) => names.join('、'),
      text: (row) => row.visitNames.join('、'),
    },
    { title: t.remark, dataIndex: 'remark', minWidth: 120 },
    { title: t.updateBy, dataIndex: 'updateBy', width: 100 },
    { title: t.updateTime, dataIndex: 'updateTime', kind: 'datetime' },
    actionsColumn<FollowPlanRow>([
      {
        key: 'edit',
        label: COMMON_TEXT.edit,
        allowed: mayEdit,
        onClick: (row) => setDialog({ mode: 'edit', id: row.id }),
      },
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
      <PlanDialog studyId={studyId} diseases={study?.diseases ?? []} state={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
