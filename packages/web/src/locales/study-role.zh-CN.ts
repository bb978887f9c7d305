export const STUDY_ROLE_TEXT = {
  title: '项目角色',
  name: '角色名称',
  nameRequired: '请输入角色名称',
  permissions: '权限',
  permissionCount: (count: number) => `${count} 项`,
  memberCount: '人员数',
  addTitle: '新增项目角色',
  editTitle: '修改项目角色',
  confirmRemove: (name: string) => `确定删除项目角色“${name}”吗？`,
  removeHint: '角色下仍有项目人员时不能删除。',
} as const;
