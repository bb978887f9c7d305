export const REALTIME_TEXT = {
  queryOpened: '新质疑',
  queryAnswered: '质疑已回复',
  calendarReminder: '日程提醒',
  /** What is spoken: the notice's title and the form's title. */
  spoken: (title: string, crfTitle: string) => (crfTitle ? `${title}，${crfTitle}` : title),
  savedElsewhere: '已被他人修改',
  savedElsewhereHint: '其他人刚刚保存了这份表单。刷新可查看最新数据；您未保存的修改已保留为草稿，刷新后可选择恢复。',
  speech: '语音播报',
} as const;
