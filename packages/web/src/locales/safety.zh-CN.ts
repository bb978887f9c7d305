import { SAE_KIND_NAMES, type SaeKind } from '@ecrf/core';

/** 不良事件 (issue 37): the SAE report list, the module switch in 项目配置 and the top bar's count. */
export const SAFETY_TEXT = {
  title: '不良事件',
  code: '患者编号',
  site: '中心',
  term: '不良事件名称',
  grade: '严重程度',
  awareAt: '获知时间',
  deadlineAt: '报告时限',
  remaining: '剩余时间',
  version: '版本',
  state: '状态',
  all: '全部',
  stateFilter: '报告状态',
  versionOf: (version: number, kind: SaeKind) => `v${version} ${SAE_KIND_NAMES[kind]}`,
  submit: '提交报告',
  submitConfirm: '确认提交该SAE报告？',
  submitConfirmHint: '报告将保存该不良事件记录此刻的全部内容，提交后不能修改；有新信息时请创建随访报告。',
  followup: '随访报告',
  followupConfirm: '确认创建随访报告？',
  followupConfirmHint: (next: number) => `将生成第 ${next} 版报告，状态为待提交，报告时限为创建时起 24 小时。`,
  exportReport: '导出',
  exportWord: '导出Word',
  exportPdf: '导出PDF',
  exportCioms: '导出CIOMS',
  moduleOffHint: '项目未开启不良事件模块，可在 项目配置 · 不良事件 中开启。',
  // 项目配置 · 不良事件
  tab: '不良事件',
  moduleSwitch: '开启不良事件模块',
  moduleHint:
    '开启后，项目中新增可重复填写的表单「不良事件记录」（放在阶段「不良事件」中）。记录为严重不良事件（是否严重为“是”）并填写研究者获知时间后，即开始 24 小时报告计时，拥有「安全性报告」权限的成员会收到通知，并在「不良事件」页面提交 SAE 报告。关闭模块只停止新的计时，已有的表单、记录和报告都保留。',
  aeForm: '不良事件表单',
  // The top bar
  pendingSaes: (count: number) => `待提交SAE报告 ${count} 份`,
} as const;
