export const ROLE_TEXT = {
  title: '角色管理',
  name: '角色名称',
  nameRequired: '请输入角色名称',
  key: '权限字符',
  keyRequired: '请输入权限字符',
  sort: '显示顺序',
  menus: '菜单权限',
  addTitle: '新增角色',
  editTitle: '修改角色',
  adminTag: '超级管理员',
  confirmRemove: (name: string) => `确定删除角色“${name}”吗？`,
} as const;
