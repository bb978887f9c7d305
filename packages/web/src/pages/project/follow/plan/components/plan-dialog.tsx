import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, App, Button, Card, Form, Input, InputNumber, Modal, Select, Space } from 'antd';
import { OFFSET_UNITS } from '@ecrf/core';
import { followApi, type FollowPlanBody, type FollowPlanVisit } from '../../../../../api/follow.api';
import { queryKeys } from '../../../../../api/query-keys';
import { personnelApi } from '../../../../../api/study.api';
import { useListMutation } from '../../../../../components/table-page';
import { COMMON_TEXT } from '../../../../../locales/common.zh-CN';
import { FOLLOW_TEXT } from '../../../../../locales/follow.zh-CN';
import { FOLLOW_DRAFT_TEXT } from '../../../../../locales/follow-draft.zh-CN';
import { formatDate } from '../../../../../utils/format-date';

const t = FOLLOW_TEXT;

export type PlanDialogState = { mode: 'add' } | { mode: 'edit'; id: number };

interface Values {
  planName: string;
  diseaseCode?: string | null;
  remark?: string;
  visits: FollowPlanVisit[];
}

const UNIT_OPTIONS = OFFSET_UNITS.map(([value]) => ({ value, label: t.units[value] }));
const NEW_VISIT: FollowPlanVisit = {
  visitName: '',
  offset: 1,
  unit: 'month',
  windowBefore: 7,
  windowAfter: 7,
  crfIds: [],
};

/** The query key of a plan's draft (under the plan's, so any follow change refreshes it). */
export const draftKey = (planId: number | null) => [...queryKeys.follow.plan(planId), 'draft'] as const;

/**
 * 新增计划 / 编辑计划: the plan and its ordered visits; an edit asks whether enrolled patients are rescheduled.
 * With `drafts` (a production study, issue 36) an edit goes to the plan's draft instead: the visits open from the
 * draft when one is open, only they are edited, and saving keeps them as the draft (nothing is rescheduled).
 */
export function PlanDialog({
  studyId,
  diseases,
  state,
  drafts = false,
  onClose,
}: {
  studyId: number;
  /** The study's diseases: a plan may be for one of them (multi-disease studies), or for every patient. */
  diseases: ReadonlyArray<{ diseaseName: string; diseaseCode: string }>;
  state: PlanDialogState | null;
  drafts?: boolean;
  onClose: () => void;
}) {
  const [form] = Form.useForm<Values>();
  const { modal } = App.useApp();
  const editId = state?.mode === 'edit' ? state.id : null;
  const asDraft = drafts && editId !== null;
  const plan = useQuery({
    queryKey: queryKeys.follow.plan(editId),
    queryFn: () => followApi.plan(editId!).then((res) => res.data),
    enabled: editId !== null,
  });
  const draft = useQuery({
    queryKey: draftKey(editId),
    queryFn: () => followApi.draft(studyId, editId!).then((res) => res.data),
    enabled: asDraft,
  });
  const crfs = useQuery({
    queryKey: queryKeys.follow.crfs(studyId),
    queryFn: () => followApi.crfs(studyId).then((res) => res.data),
    enabled: state !== null,
  });
  const staff = useQuery({
    queryKey: queryKeys.follow.staff(studyId),
    queryFn: () => personnelApi.list({ studyId, pageNum: 1, pageSize: 999999 }).then((res) => res.data.list),
    enabled: state !== null,
  });

  useEffect(() => {
    if (!state) return;
    if (state.mode === 'add') {
      form.setFieldsValue({ planName: '', diseaseCode: null, remark: '', visits: [{ ...NEW_VISIT }] });
    } else if (plan.data && (!asDraft || draft.isSuccess)) {
      form.setFieldsValue({
        planName: plan.data.planName,
        diseaseCode: plan.data.diseaseCode,
        remark: plan.data.remark,
        visits: (asDraft && draft.data?.visits) || plan.data.visits,
      });
    }
  }, [state, plan.data, asDraft, draft.isSuccess, draft.data, form]);

  const saveDraft = useListMutation({
    mutationFn: (body: FollowPlanBody) => followApi.saveDraft({ studyId, planId: editId!, visits: body.visits }),
    invalidate: [queryKeys.follow.all()],
    onSuccess: onClose,
  });
  const save = useListMutation({
    mutationFn: (body: FollowPlanBody) => (body.id ? followApi.updatePlan(body) : followApi.createPlan(body)),
    invalidate: [queryKeys.follow.all()],
    onSuccess: onClose,
  });

  const submit = async () => {
    const values = await form.validateFields();
    const body: FollowPlanBody = {
      studyId,
      planName: values.planName,
      diseaseCode: values.diseaseCode ?? null,
      remark: values.remark ?? '',
      visits: values.visits.map((v) => ({
        id: v.id ?? null,
        visitName: v.visitName,
        offset: v.offset,
        unit: v.unit,
        windowBefore: v.windowBefore ?? 0,
        windowAfter: v.windowAfter ?? 0,
        repeatEvery: v.repeatEvery || null,
        repeatUntil: v.repeatEvery ? (v.repeatUntil ?? null) : null,
        responsibleUserId: v.responsibleUserId ?? null,
        crfIds: v.crfIds,
      })),
    };
    if (editId === null) return save.mutate(body);
    if (asDraft) return saveDraft.mutate(body);
    // FOLLOW-11: a changed plan asks whether pending visits of enrolled patients follow it; done ones never move.
    modal.confirm({
      title: t.rescheduleTitle,
      content: t.reschedule,
      okText: t.rescheduleYes,
      cancelText: t.rescheduleNo,
      onOk: () => save.mutateAsync({ ...body, id: editId, reschedule: true }),
      onCancel: () => save.mutate({ ...body, id: editId, reschedule: false }),
    });
  };

  const crfOptions = (crfs.data ?? []).map((c) => ({ value: c.crfId, label: c.title }));
  const staffOptions = (staff.data ?? []).map((m) => ({ value: m.userId, label: m.name }));

  return (
    <Modal
      open={state !== null}
      title={editId === null ? t.addPlan : t.editPlan}
      width={880}
      onCancel={onClose}
      onOk={() => void submit()}
      confirmLoading={save.isPending || saveDraft.isPending}
      destroyOnHidden
      okText={asDraft ? FOLLOW_DRAFT_TEXT.saveDraft : COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
    >
      {asDraft && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          title={
            draft.data
              ? `${FOLLOW_DRAFT_TEXT.draftBanner}${FOLLOW_DRAFT_TEXT.draftSavedBy(draft.data.updatedByName, formatDate(draft.data.updatedAt))}`
              : FOLLOW_DRAFT_TEXT.banner
          }
          description={FOLLOW_DRAFT_TEXT.planFieldsLocked}
        />
      )}
      <Form form={form} name="follow-plan" layout="vertical" preserve={false}>
        <Form.Item label={t.planName} name="planName" rules={[{ required: true, whitespace: true, max: 100 }]}>
          <Input maxLength={100} disabled={asDraft} />
        </Form.Item>
        {diseases.length > 1 && (
          <Form.Item label={t.disease} name="diseaseCode">
            <Select
              disabled={asDraft}
              allowClear
              placeholder={t.allDiseases}
              options={diseases.map((d) => ({ value: d.diseaseCode, label: d.diseaseName }))}
            />
          </Form.Item>
        )}
        <Form.Item label={t.remark} name="remark">
          <Input.TextArea maxLength={500} autoSize={{ minRows: 1, maxRows: 3 }} disabled={asDraft} />
        </Form.Item>
        <Form.List name="visits">
          {(fields, { add, remove }) => (
            <Space orientation="vertical" style={{ width: '100%' }}>
              {fields.map((field, index) => (
                <Card
                  key={field.key}
                  size="small"
                  title={`${t.visits} ${index + 1}`}
                  extra={
                    fields.length > 1 && (
                      <Button
                        type="text"
                        danger
                        icon={<DeleteOutlined aria-hidden />}
                        aria-label={`${t.removeVisit} ${index + 1}`}
                        onClick={() => remove(field.name)}
                      />
                    )
                  }
                >
                  <Form.Item name={[field.name, 'id']} hidden>
                    <InputNumber />
                  </Form.Item>
                  <Space wrap align="start">
                    <Form.Item
                      label={t.visitName}
                      name={[field.name, 'visitName']}
                      rules={[{ required: true, whitespace: true, max: 50 }]}
                    >
                      <Input style={{ width: 160 }} maxLength={50} />
                    </Form.Item>
                    <Form.Item label={t.offset} name={[field.name, 'offset']} rules={[{ required: true }]}>
                      <InputNumber min={0} max={3650} precision={0} style={{ width: 100 }} />
                    </Form.Item>
                    <Form.Item label={t.unit} name={[field.name, 'unit']} rules={[{ required: true }]}>
                      <Select options={UNIT_OPTIONS} style={{ width: 80 }} />
                    </Form.Item>
                    <Form.Item label={t.windowBefore} name={[field.name, 'windowBefore']}>
                      <InputNumber min={0} max={365} precision={0} style={{ width: 100 }} />
                    </Form.Item>
                    <Form.Item label={t.windowAfter} name={[field.name, 'windowAfter']}>
                      <InputNumber min={0} max={365} precision={0} style={{ width: 100 }} />
                    </Form.Item>
                    <Form.Item label={t.repeatEvery} name={[field.name, 'repeatEvery']}>
                      <InputNumber min={1} max={120} precision={0} style={{ width: 100 }} />
                    </Form.Item>
                    <Form.Item label={t.repeatUntil} name={[field.name, 'repeatUntil']}>
                      <InputNumber min={1} max={3650} precision={0} style={{ width: 100 }} />
                    </Form.Item>
                  </Space>
                  <Space wrap align="start">
                    <Form.Item
                      label={t.crfs}
                      name={[field.name, 'crfIds']}
                      rules={[{ required: true, message: COMMON_TEXT.selectPlaceholder + t.crfs }]}
                    >
                      <Select mode="multiple" options={crfOptions} style={{ width: 360 }} loading={crfs.isFetching} />
                    </Form.Item>
                    <Form.Item label={t.responsible} name={[field.name, 'responsibleUserId']}>
                      <Select allowClear options={staffOptions} style={{ width: 160 }} loading={staff.isFetching} />
                    </Form.Item>
                  </Space>
                </Card>
              ))}
              <Button type="dashed" icon={<PlusOutlined aria-hidden />} onClick={() => add({ ...NEW_VISIT })} block>
                {t.addVisit}
              </Button>
            </Space>
          )}
        </Form.List>
      </Form>
    </Modal>
  );
}
