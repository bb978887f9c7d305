import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Modal, Progress, Radio, Result, Select } from 'antd';
import { amendmentApi, migrationResultOf, type Amendment, type MigrationScope } from '../../../../api/amendment.api';
import { isActive, type Job } from '../../../../api/jobs.api';
import { queryKeys } from '../../../../api/query-keys';
import { personnelApi } from '../../../../api/study.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { AMENDMENT_TEXT } from '../../../../locales/amendment.zh-CN';
import { useRealtimeEvent } from '../../../../realtime/realtime-events';
import { useJobsDrawer } from '../../../../stores/jobs-drawer.store';

/** While the job runs its state is read at this pace (and at once on each progress push). */
export const MIGRATION_POLL_MS = 2_000;

type ScopeKind = MigrationScope['kind'];

interface Values {
  scope: ScopeKind;
  deptIds?: number[];
  reason?: string;
}

/** The migration's job: progress while it runs, then what it did (已迁移 N、数据变化 N、锁定跳过 N). */
export function MigrationProgress({ job }: { job: Job | undefined }) {
  if (!job || isActive(job)) {
    return (
      <div role="status" aria-label={AMENDMENT_TEXT.progress}>
        <Progress percent={job?.progress ?? 0} status="active" aria-label={AMENDMENT_TEXT.progress} />
        <p className="study-section-hint">{job?.message ?? AMENDMENT_TEXT.running}</p>
      </div>
    );
  }
  const result = migrationResultOf(job);
  const counts = result ? AMENDMENT_TEXT.resultOf(result.moved, result.changed, result.skippedLocked) : undefined;
  const failed = result && result.failed > 0 ? `，${AMENDMENT_TEXT.failedOf(result.failed)}` : '';
  if (job.state === 'done') {
    return <Result status="success" title={AMENDMENT_TEXT.done} subTitle={counts && `${counts}${failed}`} />;
  }
  return (
    <Result
      status={job.state === 'cancelled' ? 'warning' : 'error'}
      title={job.state === 'cancelled' ? AMENDMENT_TEXT.cancelled : AMENDMENT_TEXT.failed}
      subTitle={[counts && `${counts}${failed}`, job.error].filter(Boolean).join('；')}
    />
  );
}

/**
 * 迁移数据: which records of an amendment move to its new version (全部, 按中心, or 指定记录 ticked in the impact
 * report), an optional reason, then the background job's progress and result in the same dialog.
 */
export function MigrateDialog({
  studyId,
  amendment,
  recordIds = [],
  onClose,
}: {
  studyId: number;
  amendment: Pick<Amendment, 'id' | 'name' | 'remaining'> | null;
  /** The records ticked in the report: 指定记录 offers them. */
  recordIds?: readonly number[];
  onClose: (finished: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const showJobs = useJobsDrawer((s) => s.show);
  const [form] = Form.useForm<Values>();
  const scope = Form.useWatch('scope', form) ?? (recordIds.length > 0 ? 'records' : 'all');
  const [jobId, setJobId] = useState<string | null>(null);

  const sites = useQuery({
    queryKey: queryKeys.studyPersonnel.sites(),
    queryFn: () => personnelApi.sites().then((res) => res.data),
    enabled: amendment !== null,
  });

  const job = useQuery({
    queryKey: queryKeys.amendment.job(jobId),
    queryFn: () => amendmentApi.job(jobId!).then((res) => res.data),
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data && !isActive(query.state.data) ? false : MIGRATION_POLL_MS),
  });
  useRealtimeEvent('job.progress', (push) => {
    if (push.jobId === jobId) void job.refetch();
  });
  const finished = job.data !== undefined && !isActive(job.data);
  useEffect(() => {
    // The list's remaining counts and the reports change once records have moved.
    if (finished) void queryClient.invalidateQueries({ queryKey: queryKeys.amendment.list(studyId) });
  }, [finished, queryClient, studyId]);

  const start = useMutation({
    mutationFn: (values: Values) => {
      const chosen: MigrationScope =
        values.scope === 'sites'
          ? { kind: 'sites', deptIds: values.deptIds ?? [] }
          : values.scope === 'records'
            ? { kind: 'records', crfDataRecordIds: [...recordIds] }
            : { kind: 'all' };
      const reason = values.reason?.trim();
      return amendmentApi.migrate({
        studyId,
        amendmentId: amendment!.id,
        scope: chosen,
        ...(reason ? { reason } : {}),
      });
    },
    onSuccess: (res) => {
      setJobId(res.data.jobId);
      void queryClient.invalidateQueries({ queryKey: queryKeys.jobs.all() });
    },
  });

  const close = () => {
    const done = jobId !== null;
    if (done) void queryClient.invalidateQueries({ queryKey: queryKeys.amendment.all() });
    onClose(done);
  };

  const footer = jobId
    ? [
        <Button key="jobs" onClick={showJobs}>
          {AMENDMENT_TEXT.viewJobs}
        </Button>,
        <Button key="close" type="primary" onClick={close}>
          {finished ? COMMON_TEXT.ok : COMMON_TEXT.close}
        </Button>,
      ]
    : undefined;

  return (
    <Modal
      open={amendment !== null}
      title={amendment ? AMENDMENT_TEXT.migrateTitle(amendment.name) : ''}
      okText={AMENDMENT_TEXT.start}
      okButtonProps={{ disabled: scope === 'records' && recordIds.length === 0 }}
      confirmLoading={start.isPending}
      onOk={() =>
        void form
          .validateFields()
          .then((values) => start.mutate(values))
          // The form shows what is missing.
          .catch(() => undefined)
      }
      onCancel={close}
      footer={footer}
      afterClose={() => {
        setJobId(null);
        form.resetFields();
      }}
      destroyOnHidden
      width={560}
    >
      {jobId ? (
        <MigrationProgress job={job.data} />
      ) : (
        <>
          <Alert type="warning" showIcon title={AMENDMENT_TEXT.migrateHint} style={{ marginBottom: 12 }} />
          <Form<Values>
            form={form}
            layout="vertical"
            preserve={false}
            initialValues={{ scope: recordIds.length > 0 ? 'records' : 'all' }}
          >
            <Form.Item name="scope" label={AMENDMENT_TEXT.scope}>
              <Radio.Group
                options={[
                  { value: 'all', label: AMENDMENT_TEXT.scopeAll },
                  { value: 'sites', label: AMENDMENT_TEXT.scopeSites },
                  { value: 'records', label: AMENDMENT_TEXT.scopeRecords },
                ]}
              />
            </Form.Item>
            {scope === 'all' && amendment && (
              <p className="study-section-hint">{AMENDMENT_TEXT.scopeAllOf(amendment.remaining)}</p>
            )}
            {scope === 'sites' && (
              <Form.Item
                name="deptIds"
                label={AMENDMENT_TEXT.sites}
                rules={[{ required: true, type: 'array', min: 1, message: AMENDMENT_TEXT.sitesRequired }]}
              >
                <Select
                  mode="multiple"
                  allowClear
                  loading={sites.isLoading}
                  optionFilterProp="label"
                  options={(sites.data ?? []).map((site) => ({ value: site.deptId, label: site.deptName }))}
                />
              </Form.Item>
            )}
            {scope === 'records' && (
              <p className="study-section-hint">
                {recordIds.length > 0
                  ? AMENDMENT_TEXT.recordsChosen(recordIds.length)
                  : AMENDMENT_TEXT.recordsFromReport}
              </p>
            )}
            <Form.Item name="reason" label={AMENDMENT_TEXT.reason}>
              <Input.TextArea rows={2} maxLength={200} placeholder={AMENDMENT_TEXT.reasonPlaceholder} />
            </Form.Item>
          </Form>
        </>
      )}
    </Modal>
  );
}
