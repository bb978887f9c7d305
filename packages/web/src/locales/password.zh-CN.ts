export const PASSWORD_TEXT = {
  title: '修改密码',
  oldPassword: '原始密码',
  userName: '用户名',
  newPassword: '新密码',
  confirmPassword: '确认密码',
  /** Why the dialog cannot be dismissed (the spec gives no words for it). */
  mustChangeHint: '首次登录、密码已重置或密码已过期，请修改密码后继续使用',
} as const;
