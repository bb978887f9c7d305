/** 系统设置 (account and session policy), 账号有效期 and the idle sign-out warning. */
export const SECURITY_TEXT = {
  title: '系统设置',
  sectionPolicy: '账号与会话安全',
  passwordMaxAgeDays: '密码有效期（天）',
  passwordMaxAgeDaysHelp: '超过该天数未修改密码，下次登录时须修改密码；0 表示不限制',
  passwordHistoryCount: '不可重复使用的最近密码数',
  passwordHistoryCountHelp: '修改密码时，新密码不能与最近几次使用过的密码（含当前密码）相同；0 表示不检查',
  idleTimeoutMinutes: '无操作自动退出（分钟）',
  idleTimeoutMinutesHelp: '超过该时间无任何操作将自动退出登录，退出前 1 分钟提醒',
  save: '保存',
  history: '修改记录',
  historySetting: '设置项',
  historyOld: '原值',
  historyNew: '新值',
  historyUser: '操作人',
  historyTime: '修改时间',
  required: '请输入',
  // 账号有效期 in the user pages.
  expiresOn: '账号有效期',
  expiresOnHelp: '该日期（含）之后不能登录，API令牌同时失效；不填表示长期有效',
  expiresOnPlaceholder: '长期有效',
  expired: '已过期',
  // The idle warning.
  idleWarningTitle: '即将自动退出',
  idleWarningBody: (seconds: number) => `您已长时间未操作，将在 ${seconds} 秒后自动退出登录。`,
  idleContinue: '继续使用',
  idleLogout: '立即退出',
} as const;
