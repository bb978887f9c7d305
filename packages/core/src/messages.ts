/**
 * User-facing texts fixed by the specification (platform §5, §8; forms §5, §8).
 * Server and browser both use these so a rule reads the same on either side.
 */
export const MSG = {
  ok: '操作成功',
  failed: '操作失败！',
  loginTimeout: '登录超时',
  forbidden: '当前用户无操作权限，请联系管理员',
  systemError: '系统异常',
  permissionTooltip: '权限不足，请联系管理员',
  notInStudy: '您未参与该项目',

  userNameRequired: '请输入用户名',
  userNameMobile: '手机号格式不正确',
  passwordRequired: '请输入密码',
  passwordTooShort: '密码不可少于6字符',
  passwordTooLong: '密码不可超过20字符',
  nameRequired: '请输入真实姓名',
  deptRequired: '请选择所属机构',
  rolesRequired: '请选择所属职位',
  remarkTooLong: '备注不可超过60字符',

  codeRequired: '请输入编号',
  codeTaken: '编号已存在',
  subjectNameRequired: '请输入患者姓名',
  genderRequired: '请选择患者性别',
  diseaseRequired: '请选择病种',
  subjectMobile: '请输入11位手机号码',
  subjectIdNumber: '请输入正确的身份证号码',
  subjectIdNumberRequired: '请输入身份证号码',
  idNumberTaken: '该身份证号已登记',
  birthTooLate: '出生日期不能晚于当前日期前10天',
  fillRequired: '请将必填项填写完整',

  oldPasswordRequired: '请输入原始密码',
  passwordSameAsOld: '不能和原始密码相同!',
  confirmRequired: '请再次输入密码',
  confirmMismatch: '两次输入密码不一致!',
} as const;
