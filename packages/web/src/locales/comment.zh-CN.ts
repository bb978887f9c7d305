/** Field comments (批注, issue 37) on the CRF page. */
export const COMMENT_TEXT = {
  title: '批注',
  titleOf: (item: string) => `批注：${item}`,
  add: '添加批注',
  empty: '暂无批注',
  placeholder: '请输入批注内容',
  required: '请输入批注内容',
  added: '批注已添加',
  needsRecord: '请先保存表单，再添加批注',
  count: (n: number) => `${n} 条批注`,
} as const;
