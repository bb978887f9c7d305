export const SHELL_TEXT = {
  notices: '通知公告',
  noNotices: '暂无通知',
  backToStudyList: '返回项目列表',
  expandMenu: '展开菜单',
  collapseMenu: '收起菜单',
  qrCode: '项目二维码',
  calendar: '日历',
  calendarWithEvents: (n: number) => `日历 · 今日日程 ${n} 个`,
  follow: '随访提醒',
  followWithDoubts: (n: number) => `随访提醒 · 待处理质疑 ${n} 条`,
  followWithVisits: (visits: number, doubts: number) =>
    doubts > 0
      ? `随访提醒 · 待随访/已超窗 ${visits} 次 · 待处理质疑 ${doubts} 条`
      : `随访提醒 · 待随访/已超窗 ${visits} 次`,
  profile: '个人信息',
  changePassword: '修改密码',
  help: '帮助与反馈',
  logout: '退出登录',
  helpText:
    '本平台用于临床科研项目的电子数据采集：在项目列表中进入项目后，可管理患者、填写CRF表单、处理质疑、安排随访。',
  feedbackText: '使用中遇到问题或有改进建议，请联系本单位的系统管理员反馈，并注明出现问题的页面和操作步骤。',
  qrDownload: '下载二维码',
  qrDownloadFailed: '下载二维码失败',
  qrFileSuffix: '二维码.png',
} as const;
