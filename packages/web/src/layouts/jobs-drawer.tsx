import { useState } from 'react';
import { UnorderedListOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Badge, Button, Drawer, Empty, Grid, List, Progress, Space, Tag, Tooltip, Typography } from 'antd';
import { isActive, jobsApi, type Job, type JobState } from '../api/jobs.api';
import { queryKeys } from '../api/query-keys';
import { JOBS_TEXT } from '../locales/jobs.zh-CN';
import { useJobsDrawer } from '../stores/jobs-drawer.store';
import { useSession } from '../stores/session.store';
import { fileNameFromDisposition, saveBlob } from '../utils/download';
import { formatDate } from '../utils/format-date';
import { useRealtimeEvent } from '../realtime/realtime-events';

/**
 * Progress arrives as a push (toolsignalhub job.progress); while a job may still change the list is also read
 * again at this slower pace, for a push lost while the connection was being re-made.
 */
export const JOBS_POLL_MS = 15_000;
const FINISHED: readonly string[] = ['done', 'failed', 'cancelled'];
const PAGE_SIZE = 10;

const STATE_COLOUR: Record<JobState, string> = {
  queued: 'default',
  running: 'processing',
  done: 'success',
  failed: 'error',
  cancelled: 'warning',
};

export function jobKindLabel(kind: string): string {
  return (JOBS_TEXT.kinds as Record<string, string>)[kind] ?? kind;
}

function progressStatus(job: Job): 'active' | 'success' | 'exception' | 'normal' {
  if (job.state === 'running') return 'active';
  if (job.state === 'done') return 'success';
  if (job.state === 'failed') return 'exception';
  return 'normal';
}

/**
 * 任务 in the top bar: the signed-in user's background jobs in a drawer, newest first, with their progress.
 * The list is one query (queryKeys.jobs.list), kept current by the jobs' progress pushes.
 */
export function JobsButton() {
  // In a store, so a page that starts a job (the 导出 dialog) can open the drawer on its progress.
  const open = useJobsDrawer((s) => s.open);
  const showDrawer = useJobsDrawer((s) => s.show);
  const hideDrawer = useJobsDrawer((s) => s.hide);
  const [pageNum, setPageNum] = useState(1);
  const phone = Grid.useBreakpoint().sm === false;
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const token = useSession((s) => s.token);
  // Until a forced password change is done the server answers nothing else.
  const mustChangePassword = useSession((s) => s.setPasswordMust);
  const paging = { pageNum, pageSize: PAGE_SIZE };
  const jobs = useQuery({
    queryKey: queryKeys.jobs.list(paging),
    queryFn: () => jobsApi.list(paging).then((res) => res.data),
    enabled: Boolean(token) && !mustChangePassword,
    refetchInterval: (query) => (query.state.data?.list.some(isActive) ? JOBS_POLL_MS : false),
    // Opening the drawer always shows the list as it stands now.
    refetchOnMount: true,
  });
  useRealtimeEvent('job.progress', (push) => {
    queryClient.setQueriesData<{ list: Job[]; total: number }>({ queryKey: queryKeys.jobs.all() }, (page) =>
      page
        ? {
            ...page,
            list: page.list.map((job) =>
              job.jobId === push.jobId
                ? { ...job, state: push.state as JobState, progress: push.progress, message: push.message }
                : job,
            ),
          }
        : page,
    );
    // A new job, or a finished one whose result file and times the push does not carry.
    const known = queryClient
      .getQueriesData<{ list: Job[] }>({ queryKey: queryKeys.jobs.all() })
      .some(([, page]) => page?.list.some((job) => job.jobId === push.jobId));
    if (!known || FINISHED.includes(push.state)) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.jobs.all() });
    }
  });
  const list = jobs.data?.list ?? [];
  const active = list.filter(isActive).length;

  const cancel = useMutation({
    mutationFn: (jobId: string) => jobsApi.cancel(jobId),
    onSuccess: (res) => {
      void message.success(res.msg);
      void queryClient.invalidateQueries({ queryKey: queryKeys.jobs.all() });
    },
  });

  const download = async (job: Job) => {
    try {
      const res = await jobsApi.download(job.jobId);
      saveBlob(
        res.data,
        fileNameFromDisposition(
          res.headers['content-disposition'] as string | undefined,
          job.resultFile?.fileName ?? '',
        ),
      );
    } catch {
      // The request wrapper has shown the server's message.
    }
  };

  const openDrawer = () => {
    showDrawer();
    void jobs.refetch();
  };

  return (
    <>
      <Tooltip title={active > 0 ? JOBS_TEXT.running(active) : JOBS_TEXT.title}>
        <Badge count={active} size="small" offset={[-4, 4]}>
          <Button
            type="text"
            aria-label={JOBS_TEXT.title}
            icon={<UnorderedListOutlined aria-hidden />}
            onClick={openDrawer}
          />
        </Badge>
      </Tooltip>
      <Drawer
        title={JOBS_TEXT.title}
        open={open}
        onClose={hideDrawer}
        size={phone ? '100%' : 440}
        className="jobs-drawer"
      >
        {list.length === 0 && !jobs.isLoading ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={JOBS_TEXT.empty} />
        ) : (
          <List
            loading={jobs.isLoading}
            dataSource={list}
            rowKey="jobId"
            pagination={
              (jobs.data?.total ?? 0) > PAGE_SIZE
                ? {
                    current: pageNum,
                    pageSize: PAGE_SIZE,
                    total: jobs.data?.total ?? 0,
                    size: 'small',
                    onChange: setPageNum,
                  }
                : false
            }
            renderItem={(job) => (
              <List.Item
                key={job.jobId}
                className="jobs-drawer-item"
                data-job-id={job.jobId}
                actions={[
                  isActive(job) && (
                    <Button
                      key="cancel"
                      size="small"
                      disabled={job.cancelRequested}
                      loading={cancel.isPending && cancel.variables === job.jobId}
                      onClick={() => cancel.mutate(job.jobId)}
                    >
                      {JOBS_TEXT.cancel}
                    </Button>
                  ),
                  job.resultFile && (
                    <Button key="download" size="small" type="primary" onClick={() => void download(job)}>
                      {JOBS_TEXT.download}
                    </Button>
                  ),
                ].filter(Boolean)}
              >
                <div style={{ width: '100%' }}>
                  <Space wrap size={8} style={{ width: '100%', justifyContent: 'space-between' }}>
                    <Typography.Text strong>{jobKindLabel(job.kind)}</Typography.Text>
                    <Tag color={STATE_COLOUR[job.state]}>
                      {job.cancelRequested && job.state === 'running'
                        ? JOBS_TEXT.cancelling
                        : JOBS_TEXT.states[job.state]}
                    </Tag>
                  </Space>
                  <Progress
                    percent={job.progress}
                    status={progressStatus(job)}
                    size="small"
                    aria-label={`${jobKindLabel(job.kind)} ${JOBS_TEXT.progress}`}
                  />
                  {(job.error ?? job.message) && (
                    <Typography.Text type={job.error ? 'danger' : 'secondary'} className="jobs-drawer-message">
                      {job.error ?? job.message}
                    </Typography.Text>
                  )}
                  <div>
                    <Typography.Text type="secondary">{formatDate(job.createTime)}</Typography.Text>
                  </div>
                </div>
              </List.Item>
            )}
          />
        )}
      </Drawer>
    </>
  );
}
