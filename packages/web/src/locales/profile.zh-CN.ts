export const PROFILE_TEXT = {
  userName: '用户名',
  name: '真实姓名',
  sex: '性别',
  email: '邮箱',
  mobile: '手机号',
  dept: '所属机构',
  roles: '角色',
  remark: '备注',
} as const;
