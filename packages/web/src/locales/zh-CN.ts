/**
 * Every user-visible text of the browser app that is not already a shared rule message
 * in @ecrf/core MSG. Texts the specification quotes are kept exactly as written there.
 *
 * The texts are split by area so that each page's strings arrive with its own lazy chunk and the
 * sign-in page (≤ 300 KB gzip, `bench/first-page.ts`) carries only its own. `T` here holds what the
 * entry and the login page use: the product title, the route titles and the login form. Every other
 * area has its own module beside this one, named after the area: area `crfPage` lives in
 * `crf-page.zh-CN.ts` and is exported as `CRF_PAGE_TEXT` (kebab-case file, UPPER_SNAKE name + `_TEXT`).
 * Import an area's module where it is used; never re-export one from here, that would pull it back
 * into the entry (`first-page.test.ts` checks which of these files the first page reaches).
 */
export const T = {
  productTitle: '临床科研电子数据采集平台',

  route: {
    login: '登录',
    meil: '邮件',
    studyList: '项目列表',
    projectHome: '项目首页',
    projectSubject: '患者列表',
    projectFollow: '随访概览',
    projectFollowRecord: '随访记录',
    projectFollowPlan: '随访计划',
    projectCalendar: '日历',
    projectRetrieval: '数据检索',
    projectRandomization: '随机列表',
    projectRandomlySelected: '随机结果',
    projectDoubtList: '质疑列表',
    projectSafety: '不良事件',
    projectWeChat: '公众号',
    projectWechatDisease: '公众号病种',
    projectExpert: '医生管理',
    projectDepartment: '项目介绍',
    projectConsult: '在线咨询',
    projectWxuser: '公众号用户',
    projectMedical: '病历管理',
    studyOperation: '操作日志',
    studyManage: '项目维护',
    studyConfig: '项目配置',
    studyCrf: 'CRF管理',
    studyCrfStage: 'ECRF阶段',
    studyCrfStageSet: 'ECRF设置',
    studyRole: '项目角色',
    studyUser: '项目人员',
    sysOrganization: '机构管理',
    sysRole: '角色管理',
    sysMenu: '菜单管理',
    sysUser: '用户管理',
    crfRecord: 'CRF填写',
    crfDetail: 'CRF详情',
    notFound: '页面不存在',
    redirect: '刷新',
  },

  login: {
    welcome: '欢迎登录',
    usernamePlaceholder: '请输入手机号',
    passwordPlaceholder: '请输入密码',
    codePlaceholder: '请输入验证码',
    codeRequired: '请输入验证码',
    usernameLabel: '手机号',
    passwordLabel: '密码',
    codeLabel: '验证码',
    captchaAlt: '验证码图片',
    captchaTitle: '看不清？点击刷新',
    submit: '登 录',
  },
} as const;
