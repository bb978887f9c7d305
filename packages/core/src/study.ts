import { isValueType, type CrfNode } from './crf/crf-definition.schema.js';

/**
 * Study-level permissions (a study role's permission tree). Keys: `btn:<code>` for the study's
 * button codes (forms §6), `crf:<crfId>:<action>` for what a role may do with one CRF.
 */
export const STUDY_BUTTONS = [
  ['business.subject.add', '添加患者'],
  ['business.subject.edit', '编辑患者'],
  ['business.subject.remove', '删除患者'],
  // PIPL: without it a member sees patients' names, ID numbers, mobiles and birth dates masked.
  ['business.subject.identifiers', '查看患者身份信息'],
  // Multi-centre (docs/multi-centre.md): without it a member sees and touches only the patients of their own sites.
  ['business.subject.allSites', '查看全部中心数据'],
  // Form, casebook, site and study locks (数据库锁定): set and lifted with a reason, audited on the chain.
  ['business.lock', '锁定/解锁'],
  ['business.crf.save', '保存表单'],
  ['business.crf.submit', '提交表单'],
  ['business.crf.sign', '电子签名'],
  ['business.crf.sdv', 'SDV核查'],
  ['study.iconBtn.doubt', '质疑按钮'],
  ['study.doubt.open', '发起质疑'],
  ['study.doubt.reply', '回复质疑'],
  ['study.doubt.close', '关闭质疑'],
  ['project.subject.dicom', '影像'],
  // Follow-up (forms §4): editing plans reschedules patients, so it is apart from handling visits.
  ['business.follow.plan', '管理随访计划'],
  ['business.follow.record', '处理随访记录'],
  // Randomization (platform §4): who configures, who randomizes, who may see arms while the study
  // is blinded, and the two unblinding powers, each apart so a blinded nurse can still randomize.
  ['business.randomization.config', '配置随机化'],
  ['business.randomization.subject', '随机入组'],
  ['business.randomization.unblinded', '查看随机分组'],
  ['business.randomization.emergency', '紧急揭盲'],
  ['business.randomization.unblindAll', '全部揭盲'],
  // 在线咨询: a patient's question is their health information, read with its own key; answering and
  // closing speak for the study (and show the question, so 回复咨询 includes 查看咨询: STUDY_KEYS_IMPLIED).
  ['business.consult.view', '查看咨询'],
  ['business.consult.reply', '回复咨询'],
  // Content for patients (platform §1): articles, doctors and sites are edited apart from the casebook;
  // medical records are clinical (a patient's documents) and need their own view and edit keys.
  ['project.knowledge.manage', '管理知识库'],
  ['project.expert.manage', '管理医生'],
  ['project.department.manage', '管理项目介绍'],
  ['project.medical.view', '查看病历资料'],
  ['project.medical.edit', '编辑病历资料'],
  // 上线 (docs/lifecycle.md): ends 测试 and purges the test patients with everything hanging on them.
  ['business.study.golive', '上线'],
  // 安全性报告 (issue 37): see, submit and follow up the study's SAE reports, and hear of a new one.
  ['business.safety', '安全性报告'],
  // 数据核查 (issue 37): run the study's checks over stored records and raise queries from the findings in batch.
  ['business.quality', '数据核查'],
  // 医学编码 (issue 37): load the study's MedDRA/WHODrug dictionaries, name its coded items, code and approve.
  ['business.coding', '医学编码'],
  // 编码审核 (issue 37): approve a coded term; the coder who coded it never approves it (a second pair of eyes).
  ['business.coding.approve', '编码审核'],
  // 双份录入 (issue 37): compare a double-entry form's two blind entries and decide each difference.
  ['business.doubleEntry.reconcile', '双录入核对'],
  // 参考范围 (issue 37): load and edit the sites' laboratory reference ranges.
  ['business.labRanges', '参考范围'],
  // 患者提醒 (issue 38): set the study's messages to patients and read their delivery record and report.
  ['business.messages', '患者提醒'],
] as const;

export type StudyButton = (typeof STUDY_BUTTONS)[number][0];

export const CRF_ACTIONS = [
  ['view', '查看'],
  ['save', '录入/保存'],
  ['submit', '提交'],
  ['sign', '签名'],
  ['sdv', 'SDV核查'],
  ['doubt', '质疑'],
] as const;

export type CrfAction = (typeof CRF_ACTIONS)[number][0];

/** A study role's key for a study button. */
export type StudyButtonKey = `btn:${StudyButton}`;
/** A study role's key for one action on one CRF. */
export type CrfKey = `crf:${number}:${CrfAction}`;
/**
 * A key a study role holds: what the server's study guard (`config.studyPermission`, hasStudyPermission) and the
 * web's canInStudy check. A misspelled button fails to compile there.
 */
export type StudyPermissionKey = StudyButtonKey | CrfKey;

/** The key of a button code; typed by the code, so `buttonKey('business.lock')` is `'btn:business.lock'`. */
export const buttonKey = <Code extends StudyButton>(code: Code) => `btn:${code}` as const;
export const crfKey = (crfId: number, action: CrfAction): CrfKey => `crf:${crfId}:${action}`;

const STUDY_BUTTON_KEYS: ReadonlySet<string> = new Set(STUDY_BUTTONS.map(([code]) => buttonKey(code)));
const CRF_KEY_PATTERN = new RegExp(`^crf:\\d+:(?:${CRF_ACTIONS.map(([action]) => action).join('|')})$`);

/**
 * Is a string a key a study role can hold (a known button's, or a CRF action's)? Narrows data (a stored or
 * submitted key) to StudyPermissionKey where it enters, and tells a full key from a bare button code.
 */
export function isStudyPermissionKey(value: string): value is StudyPermissionKey {
  return STUDY_BUTTON_KEYS.has(value) || CRF_KEY_PATTERN.test(value);
}

/** Every key a study role can hold for the given CRFs: the study's administrator role holds them all. */
export function allStudyPermissionKeys(crfIds: readonly number[]): string[] {
  return [
    ...STUDY_BUTTONS.map(([code]) => buttonKey(code)),
    ...crfIds.flatMap((id) => CRF_ACTIONS.map(([action]) => crfKey(id, action))),
  ];
}

/**
 * Keys a role holds through another key it holds. Answering a question shows it (the answer call answers
 * the whole question), so 回复咨询 includes 查看咨询; and roles saved before 查看咨询 existed (every 项目管理员
 * holds 回复咨询 since migration 0024) keep reading questions without their stored keys being rewritten.
 */
export const STUDY_KEYS_IMPLIED: Readonly<Partial<Record<StudyPermissionKey, StudyPermissionKey>>> = {
  [buttonKey('business.consult.view')]: buttonKey('business.consult.reply'),
};

/** Does a study role with these stored keys hold `key`, itself or through the key that includes it? */
export function roleHolds(keys: readonly string[], key: StudyPermissionKey): boolean {
  if (keys.includes(key)) return true;
  return Object.hasOwn(STUDY_KEYS_IMPLIED, key) && keys.includes(STUDY_KEYS_IMPLIED[key]!);
}

/**
 * What a role must store to hold every key for the given CRFs (the 项目管理员 test): every key but those it
 * holds through another, so a role saved before such a key was added still counts as full.
 */
export function fullRoleKeys(crfIds: readonly number[]): string[] {
  return allStudyPermissionKeys(crfIds).filter((key) => !Object.hasOwn(STUDY_KEYS_IMPLIED, key));
}

/** The study-role name created with every study, holding every permission. */
export const STUDY_ADMIN_ROLE = '项目管理员';

/** Patient base-info fields (platform §3) and their default labels and rules. */
export const DEFAULT_BASE_CONFIG = [
  { name: 'identificationCode', header: '编号', display: true, required: true },
  { name: 'subjectName', header: '患者姓名', display: true, required: true },
  { name: 'gender', header: '性别', display: true, required: true },
  { name: 'birth', header: '出生日期', display: true, required: false },
  { name: 'age', header: '年龄', display: true, required: false },
  { name: 'mobile', header: '手机号', display: true, required: false },
  // Off by default so existing studies keep their dialog and list unchanged.
  { name: 'idNumber', header: '身份证号', display: false, required: false },
  { name: 'diseaseCode', header: '病种', display: true, required: true },
] as const;

/** The next serial code of a pattern: prefix + zero-padded counter. */
export function formatSerialNumber(prefix: string, digits: number, value: number): string {
  return `${prefix}${String(value).padStart(digits, '0')}`;
}

/** Items that hold a value (what a CRF list reports as its size). */
export function countValueItems(nodes: readonly CrfNode[]): number {
  return nodes.reduce((n, node) => n + (isValueType(node.type) ? 1 : 0) + countValueItems(node.children ?? []), 0);
}

/**
 * The CRFs a study role may act on in one way (`crf:<id>:<action>` keys): every read of form
 * values, queries, history and files is filtered by the `view` set, as the form page is.
 */
export function crfIdsWith(keys: readonly string[], action: CrfAction): number[] {
  const suffix = `:${action}`;
  const ids: number[] = [];
  for (const key of keys) {
    if (!key.startsWith('crf:') || !key.endsWith(suffix)) continue;
    const id = Number(key.slice(4, -suffix.length));
    if (Number.isSafeInteger(id) && id > 0) ids.push(id);
  }
  return ids;
}
