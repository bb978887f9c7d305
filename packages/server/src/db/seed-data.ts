import type { SystemPermission } from '@ecrf/core';

/**
 * The menu tree seeded on first start: one node for every route of the spec's route table
 * (platform §2), with the button permissions the pages check (platform §6, forms §6).
 * Level 0 nodes build the main layout's menu, level 1 the project layout's.
 */
export interface SeedMenu {
  code: string;
  type: 'M' | 'C' | 'F';
  title: string;
  perms?: SystemPermission;
  path?: string;
  icon?: string;
  hidden?: boolean;
  children?: SeedMenu[];
}

const buttons = (items: Array<[code: SystemPermission, title: string]>): SeedMenu[] =>
  items.map(([code, title]) => ({ code, type: 'F', title, perms: code }));

export const MAIN_MENUS: SeedMenu[] = [
  {
    code: 'studyList',
    type: 'C',
    title: '项目列表',
    path: '/studyList',
    icon: 'AppstoreOutlined',
    perms: 'study:list',
  },
  {
    code: 'study',
    type: 'M',
    title: '项目管理',
    icon: 'ExperimentOutlined',
    children: [
      {
        code: 'study.list',
        type: 'C',
        title: '项目维护',
        path: '/study/list',
        icon: 'ProfileOutlined',
        perms: 'study:manage',
        children: buttons([
          ['study:add', '新建项目'],
          ['study:edit', '修改项目'],
          ['study:remove', '删除项目'],
        ]),
      },
      {
        code: 'study.config',
        type: 'C',
        title: '项目配置',
        path: '/study/config',
        icon: 'ControlOutlined',
        perms: 'study:config',
      },
      {
        code: 'study.crf',
        type: 'C',
        title: 'CRF管理',
        path: '/study/crf',
        icon: 'FileTextOutlined',
        perms: 'study:crf',
      },
      {
        code: 'study.crfStage',
        type: 'C',
        title: 'ECRF阶段',
        path: '/study/crfStage',
        icon: 'PartitionOutlined',
        perms: 'study:crfStage',
      },
      {
        code: 'study.crfStage.set',
        type: 'C',
        title: 'ECRF设置',
        path: '/study/crfStage/set',
        icon: 'SettingOutlined',
        perms: 'study:crfStage',
        hidden: true,
      },
      {
        code: 'study.role',
        type: 'C',
        title: '项目角色',
        path: '/study/:id/role',
        icon: 'SafetyOutlined',
        perms: 'study:role',
        hidden: true,
      },
      {
        code: 'study.user',
        type: 'C',
        title: '项目人员',
        path: '/study/:id/user',
        icon: 'UsergroupAddOutlined',
        perms: 'study:user',
        hidden: true,
      },
      {
        code: 'study.operation',
        type: 'C',
        title: '操作日志',
        path: '/study/operation',
        icon: 'HistoryOutlined',
        perms: 'monitor:operlog:list',
      },
    ],
  },
  {
    code: 'sys',
    type: 'M',
    title: '系统管理',
    icon: 'SettingOutlined',
    children: [
      {
        code: 'sys.organization',
        type: 'C',
        title: '机构管理',
        path: '/sys/organization',
        icon: 'ApartmentOutlined',
        perms: 'sys:org:organization',
        children: buttons([
          ['sys:dept:add', '新增机构'],
          ['sys:dept:edit', '修改机构'],
          ['sys:dept:remove', '删除机构'],
        ]),
      },
      {
        code: 'sys.user',
        type: 'C',
        title: '用户管理',
        path: '/sys/user',
        icon: 'UserOutlined',
        perms: 'sys:org:user',
        children: buttons([
          ['sys:user:add', '新增用户'],
          ['sys:user:edit', '修改用户'],
          ['sys:user:remove', '删除用户'],
          ['sys:user:resetPwd', '重置密码'],
        ]),
      },
      {
        code: 'sys.role',
        type: 'C',
        title: '角色管理',
        path: '/sys/role',
        icon: 'TeamOutlined',
        perms: 'sys:org:role',
        children: buttons([
          ['sys:role:add', '新增角色'],
          ['sys:role:edit', '修改角色'],
          ['sys:role:remove', '删除角色'],
        ]),
      },
      {
        code: 'sys.menu',
        type: 'C',
        title: '菜单管理',
        path: '/sys/menu',
        icon: 'MenuOutlined',
        perms: 'sys:org:menu',
        children: buttons([
          ['sys:menu:add', '新增菜单'],
          ['sys:menu:edit', '修改菜单'],
          ['sys:menu:remove', '删除菜单'],
        ]),
      },
      {
        code: 'sys.notice',
        type: 'C',
        title: '通知公告',
        path: '/sys/notice',
        icon: 'NotificationOutlined',
        perms: 'sys:notice:notice',
        children: buttons([
          ['sys:notice:add', '发布公告'],
          ['sys:notice:edit', '修改公告'],
          ['sys:notice:remove', '删除公告'],
        ]),
      },
      {
        code: 'sys.settings',
        type: 'C',
        title: '系统设置',
        path: '/sys/settings',
        icon: 'SafetyOutlined',
        perms: 'sys:settings',
      },
    ],
  },
];

const page = (
  code: SystemPermission,
  title: string,
  path: string,
  icon: string,
  extra: Partial<SeedMenu> = {},
): SeedMenu => ({
  code,
  type: 'C',
  title,
  path,
  icon,
  perms: code,
  ...extra,
});

export const PROJECT_MENUS: SeedMenu[] = [
  page('project.home', '项目首页', '/project/:id/home', 'HomeOutlined'),
  page('project.subject', '患者列表', '/project/:id/subject', 'TeamOutlined', {
    children: buttons([
      ['project.subject.dicom', '影像'],
      ['business.crf.save', '保存表单'],
      ['business.crf.submit', '提交表单'],
      ['study.iconBtn.doubt', '质疑'],
    ]),
  }),
  {
    code: 'project.followGroup',
    type: 'M',
    title: '随访管理',
    icon: 'ScheduleOutlined',
    children: [
      page('project.follow', '随访概览', '/project/:id/follow', 'DashboardOutlined'),
      page('project.follow.record', '随访记录', '/project/:id/follow/record', 'SolutionOutlined'),
      page('project.follow.plan', '随访计划', '/project/:id/follow/plan', 'CarryOutOutlined'),
    ],
  },
  page('project.calendar', '日历', '/project/:id/calendar', 'CalendarOutlined'),
  page('project.retrieval', '数据检索', '/project/:id/retrieval', 'SearchOutlined'),
  page('project.randomization', '随机列表', '/project/:id/randomization', 'OrderedListOutlined'),
  page('project.randomlySelected', '随机结果', '/project/:id/randomlySelected', 'CheckSquareOutlined'),
  page('project.doubtList', '质疑列表', '/project/:id/doubtList', 'QuestionCircleOutlined', {
    children: buttons([
      ['study.doubt.open', '发起质疑'],
      ['study.doubt.reply', '回复质疑'],
      ['study.doubt.close', '关闭质疑'],
    ]),
  }),
  page('project.safety', '不良事件', '/project/:id/safety', 'AlertOutlined'),
  page('project.weChat', '公众号', '/project/:id/weChat', 'WechatOutlined'),
  page('project.wechat.disease', '公众号病种', '/project/:id/wechat/disease', 'MedicineBoxOutlined'),
  page('project.expert', '医生管理', '/project/expert', 'IdcardOutlined'),
  page('project.department', '项目介绍', '/project/department', 'BankOutlined'),
  page('project.consult', '在线咨询', '/project/consult', 'CommentOutlined'),
  page('project.wxuser', '公众号用户', '/project/wxuser', 'UserSwitchOutlined'),
  page('project.medical', '病历管理', '/project/medical', 'FileSearchOutlined'),
  page('project.knowledge', '知识库', '/project/knowledge', 'FileTextOutlined'),
  page('project.biology', '生物样本', '/project/:id/biology', 'ExperimentOutlined'),
  page('project.crfUpload', 'CRF上传', '/project/:id/crfUpload', 'UploadOutlined'),
];

export const ROOT_DEPT_NAME = '根机构';
export const ADMIN_ROLE = { roleName: '超级管理员', roleKey: 'admin' } as const;
export const ADMIN_USER_NAME = '13800000000';
export const DEFAULT_SYSTEM_TITLE = '临床科研电子数据采集平台';
