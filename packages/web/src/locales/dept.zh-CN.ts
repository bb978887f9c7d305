export const DEPT_TEXT = {
  title: '机构管理',
  parent: '上级机构',
  parentRoot: '无（顶级机构）',
  name: '机构名称',
  nameRequired: '请输入机构名称',
  orderNum: '显示排序',
  leader: '负责人',
  phone: '联系电话',
  addTitle: '新增机构',
  editTitle: '修改机构',
  addChild: '新增下级',
  filterName: '机构名称',
} as const;
