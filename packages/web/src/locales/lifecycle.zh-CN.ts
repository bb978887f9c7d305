import type { GoLiveCounts } from '@ecrf/core';

/** 测试 / 上线 (docs/lifecycle.md): the marks of test data and the go-live section and dialog of 项目配置. */
export const LIFECYCLE_TEXT = {
  /** The tag beside a study in 测试, a test patient and a test randomization. */
  testTag: '测试',
  testStudyTip: '项目处于测试阶段：录入的数据均为测试数据，上线时清除',
  testPatientTip: '测试患者：其数据为测试数据，上线时清除，不计入正式导出',
  testRandomizationTip: '测试随机：取自测试随机表，不占用正式随机号',
  testExportTip: '测试导出：项目处于测试阶段时导出，文件名以“测试数据_”开头，文件内标明测试数据',
  liveTag: '已上线',

  tab: '测试与上线',
  sectionTitle: '上线',
  modeLabel: '项目状态',
  modeTest: '测试',
  modeProduction: '已上线',
  wentLiveAt: '上线时间',
  liveOn: (date: string) => `已上线（${date}）`,
  testHint:
    '项目处于测试阶段：一切功能与正式项目相同，录入的患者、表单、质疑、随机和导出都标记为测试数据。确认配置无误后由项目管理员上线；上线时清除全部测试患者及其数据。',
  liveHint: '项目已上线：新录入的数据为正式数据。',
  goLive: '上线',
  noPermission: '只有拥有“上线”权限的成员可以上线',

  dialogTitle: '上线',
  purgeIntro: '上线将一次性清除以下测试数据，且不可恢复：',
  counts: (c: GoLiveCounts) =>
    `测试患者 ${c.subjects} 例、表单记录 ${c.crfRecords} 份、质疑 ${c.doubts} 条、随机 ${c.randomizations} 例、随访 ${c.followRecords} 次、文件 ${c.files} 个、稽查记录 ${c.auditRows} 条`,
  auditNote: '稽查轨迹保留上线操作及清除的数量，不保留测试数据的内容。',
  loadingCounts: '正在统计将清除的测试数据…',
  confirmCode: (code: string) => `请输入项目编号 ${code} 以确认`,
  confirmCodeLabel: '项目编号',
  confirmCodeRequired: '请输入项目编号',
  confirmCodeMismatch: '项目编号不一致',
  reason: '上线原因',
  reasonRequired: '请填写上线原因',
  reasonPlaceholder: '例如：用户验收测试完成，方案与表单已确认',
  ok: '确认上线',
  done: '上线成功',
} as const;
