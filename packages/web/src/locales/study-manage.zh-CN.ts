export const STUDY_MANAGE_TEXT = {
  title: '项目维护',
  addTitle: '新增项目',
  editTitle: '修改项目',
  config: '项目配置',
  crf: 'CRF管理',
  crfStage: 'ECRF阶段',
  role: '项目角色',
  user: '项目人员',
  confirmRemove: (name: string) => `确定删除项目“${name}”吗？`,
  removeHint: '已有患者数据的项目不能删除。',
  creatorNote: '创建后，您将作为项目管理员加入该项目。',
} as const;
