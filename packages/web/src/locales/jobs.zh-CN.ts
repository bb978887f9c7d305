export const JOBS_TEXT = {
  title: '任务',
  running: (n: number) => `任务 · 进行中 ${n} 个`,
  empty: '暂无任务',
  cancel: '取消',
  cancelling: '正在取消',
  download: '下载',
  progress: '进度',
  states: { queued: '排队中', running: '进行中', done: '已完成', failed: '失败', cancelled: '已取消' },
  /** What each kind of job is called; a kind missing here shows its code. */
  kinds: {
    'test.count': '测试任务',
    'data.import': '数据导入',
    'data.export': '数据导出',
    'crf-migration': 'CRF数据迁移',
  },
} as const;
