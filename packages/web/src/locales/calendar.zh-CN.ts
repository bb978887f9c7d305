export const CALENDAR_TEXT = {
  title: '日历',
  month: '月',
  week: '周',
  day: '日',
  today: '今天',
  prev: '上一页',
  next: '下一页',
  add: '新增日程',
  edit: '编辑日程',
  view: '日程',
  delete: '删除',
  deleteConfirm: '确定删除该日程吗？',
  deleted: '删除成功',
  saved: '保存成功',
  fieldTitle: '标题',
  fieldAllDay: '全天',
  fieldTime: '时间',
  fieldDate: '日期',
  fieldNote: '备注',
  fieldRemind: '提醒',
  remindNone: '不提醒',
  remindAt: (minutes: number) =>
    minutes === 0
      ? '开始时'
      : minutes % 1440 === 0
        ? `提前${minutes / 1440}天`
        : minutes % 60 === 0
          ? `提前${minutes / 60}小时`
          : `提前${minutes}分钟`,
  titleRequired: '请输入标题',
  timeRequired: '请选择时间',
  dateRequired: '请选择日期',
  noEvents: '暂无日程',
  allDay: '全天',
  visits: '随访',
  window: '窗口期',
  more: (n: number) => `还有${n}项`,
  eventsOf: (day: string) => `${day} 的日程`,
  fieldPatient: '患者',
  patientPlaceholder: '输入患者编号搜索（可不选）',
  openCasebook: '打开病历',
} as const;
