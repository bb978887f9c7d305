/** 缺失原因 (issue 37): the CRF page's 缺失 menu texts are in crf-texts.ts; these are 项目配置's. */
export const MISSING_CODES_TEXT = {
  tab: '缺失原因',
  hint: '数据确实拿不到时，录入人员可在题目上标记缺失原因代替数值；必填题标记后视为已完成。已有记录使用的代码不能删除。',
  code: '代码',
  label: '名称',
  codePlaceholder: '如 ND',
  labelPlaceholder: '如 未查',
  add: '添加缺失原因',
  remove: '删除',
  save: '保存',
  codeAria: (n: number) => `第 ${n} 个缺失原因的代码`,
  labelAria: (n: number) => `第 ${n} 个缺失原因的名称`,
  removeAria: (n: number) => `删除第 ${n} 个缺失原因`,
} as const;
