export const STUDY_LIST_TEXT = {
  title: '项目列表',
  empty: '暂无项目',
  emptyHint: '您还没有参与任何项目，请联系项目管理员将您加入项目',
  name: '项目名称',
  enter: '进入项目',
  searchPlaceholder: '请输入项目名称',
  code: '项目编号',
  principal: '负责人',
  members: '项目人员',
  subjects: '患者数',
  myRole: '我的角色',
} as const;
