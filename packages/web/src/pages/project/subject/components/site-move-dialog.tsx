import { useEffect, useMemo } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Form, Input, Modal, TreeSelect } from 'antd';
import { buildTree, MSG } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { randomizationApi } from '../../../../api/randomization.api';
import { personnelApi, type SiteRow } from '../../../../api/study.api';
import { subjectApi } from '../../../../api/subject.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { SUBJECT_TEXT } from '../../../../locales/subject.zh-CN';
import { validatedValues } from '../../../../components/validated-values';

export interface SiteMoveTarget {
  subjectId: number;
  subjectName: string;
  deptId: number | null;
}

interface SiteNode {
  value: number;
  title: string;
  disabled?: boolean;
  children?: SiteNode[];
}

function toNodes(rows: ReadonlyArray<SiteRow & { children?: SiteRow[] }>, current: number | null): SiteNode[] {
  return [...rows]
    .sort((a, b) => (a.orderNum ?? 0) - (b.orderNum ?? 0))
    .map((row) => ({
      value: row.deptId,
      title: row.deptName,
      disabled: row.deptId === current,
      children: row.children?.length ? toNodes(row.children, current) : undefined,
    }));
}

/**
 * 转移中心 (docs/multi-centre.md): a manager (查看全部中心数据) moves a patient to another site with a reason; the
 * server audits it. The old site's staff no longer see the patient.
 */
export function SiteMoveDialog({
  studyId,
  target,
  onClose,
}: {
  studyId: number;
  target: SiteMoveTarget | null;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ deptId?: number; reason: string }>();
  const open = Boolean(target);
  const sites = useQuery({
    queryKey: queryKeys.studyPersonnel.sites(),
    enabled: open,
    retry: false,
    queryFn: () => personnelApi.sites().then((res) => res.data),
  });
  // Without the department tree (a study manager who is no user administrator): the study's own sites, those of
  // its staff and patients.
  const studySites = useQuery({
    queryKey: queryKeys.randomization.depts(studyId),
    enabled: open && sites.isError,
    queryFn: () => randomizationApi.factorDepts(studyId).then((res) => res.data),
  });
  const tree = useMemo(() => {
    const rows: SiteRow[] = sites.data ?? (studySites.data ?? []).map((d) => ({ ...d, parentId: 0, orderNum: 0 }));
    return toNodes(
      buildTree(rows, (row) => row.deptId) as Array<SiteRow & { children?: SiteRow[] }>,
      target?.deptId ?? null,
    );
  }, [sites.data, studySites.data, target]);
  useEffect(() => {
    if (open) form.resetFields();
  }, [open, form]);

  const move = useMutation({
    mutationFn: (values: { deptId: number; reason: string }) =>
      subjectApi.moveSite({ subjectId: target!.subjectId, deptId: values.deptId, reason: values.reason.trim() }),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.subject.all() });
      onClose();
    },
  });

  const submit = async () => {
    const values = await validatedValues(form);
    if (values?.deptId) move.mutate({ deptId: values.deptId, reason: values.reason });
  };

  return (
    <Modal
      open={open}
      title={target ? SUBJECT_TEXT.moveSiteTitle(target.subjectName) : ''}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={COMMON_TEXT.ok}
      cancelText={COMMON_TEXT.cancel}
      confirmLoading={move.isPending}
      destroyOnHidden
      mask={{ closable: false }}
    >
      <Alert type="warning" showIcon title={SUBJECT_TEXT.moveSiteHint} style={{ marginBottom: 16 }} />
      <Form form={form} name="site-move-dialog" layout="vertical">
        <Form.Item
          label={SUBJECT_TEXT.moveSiteTarget}
          name="deptId"
          rules={[{ required: true, message: SUBJECT_TEXT.siteRequired }]}
        >
          <TreeSelect
            treeDefaultExpandAll
            treeData={tree}
            loading={sites.isLoading}
            placeholder={COMMON_TEXT.selectPlaceholder}
          />
        </Form.Item>
        <Form.Item
          label={SUBJECT_TEXT.moveSiteReason}
          name="reason"
          rules={[{ required: true, whitespace: true, message: SUBJECT_TEXT.moveSiteReasonRequired }]}
        >
          <Input.TextArea rows={3} maxLength={200} showCount placeholder={SUBJECT_TEXT.reasonPlaceholder} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
