/**
 * Pure permission decisions shared by the browser (hiding and disabling controls)
 * and the server (guards). A permission list is the union of the codes of every
 * menu node (C and F) that the user's enabled roles grant.
 */
export const ALL_PERMISSIONS = '*:*:*';

/**
 * Every system permission key: the `perms` of the seeded menu tree (the server's db/seed-data.ts types its nodes
 * with it), which roles grant and which the server's route guards (`config.permission`) and the web's `can` check.
 * A key spelled otherwise at those checks fails to compile. Study permissions (a study role's keys) are
 * StudyPermissionKey (study.ts).
 */
export const SYSTEM_PERMISSIONS = [
  // 项目列表, 项目管理 and its pages and buttons
  'study:list',
  'study:manage',
  'study:add',
  'study:edit',
  'study:remove',
  'study:config',
  'study:crf',
  'study:crfStage',
  'study:role',
  'study:user',
  'monitor:operlog:list',
  // 系统管理
  'sys:org:organization',
  'sys:dept:add',
  'sys:dept:edit',
  'sys:dept:remove',
  'sys:org:user',
  'sys:user:add',
  'sys:user:edit',
  'sys:user:remove',
  'sys:user:resetPwd',
  'sys:org:role',
  'sys:role:add',
  'sys:role:edit',
  'sys:role:remove',
  'sys:org:menu',
  'sys:menu:add',
  'sys:menu:edit',
  'sys:menu:remove',
  'sys:notice:notice',
  'sys:notice:add',
  'sys:notice:edit',
  'sys:notice:remove',
  // 系统设置: account and session policy (issue 36)
  'sys:settings',
  // The project layout's pages and the buttons seeded under them
  'project.home',
  'project.subject',
  'project.subject.dicom',
  'business.crf.save',
  'business.crf.submit',
  'study.iconBtn.doubt',
  'project.follow',
  'project.follow.record',
  'project.follow.plan',
  'project.calendar',
  'project.retrieval',
  'project.randomization',
  'project.randomlySelected',
  'project.doubtList',
  'study.doubt.open',
  'study.doubt.reply',
  'study.doubt.close',
  'project.safety',
  'project.weChat',
  'project.wechat.disease',
  'project.expert',
  'project.department',
  'project.consult',
  'project.wxuser',
  'project.medical',
  'project.knowledge',
  'project.biology',
  'project.crfUpload',
] as const;

export type SystemPermission = (typeof SYSTEM_PERMISSIONS)[number];

/** 项目维护: its holders reach every study with every study permission, staff of it or not. */
export const STUDY_MANAGE = 'study:manage' satisfies SystemPermission;

/**
 * Does a held list (data: a user's permissions or stored buttons) grant `code`? Only the key asked about is
 * typed, so a misspelt key fails to compile.
 */
export function hasPermission(granted: readonly string[], code: SystemPermission): boolean {
  return granted.includes(ALL_PERMISSIONS) || granted.includes(code);
}

export function hasAnyPermission(granted: readonly string[], codes: readonly SystemPermission[]): boolean {
  return codes.some((code) => hasPermission(granted, code));
}
