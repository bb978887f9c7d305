import type { CrfNode } from './crf/crf-definition.schema.js';
import { isEmptyValue } from './crf/field-rules.js';
import { itemTitle, valueText } from './crf/record-values.js';
import { LOCK_SCOPE_NAMES, type LockScope } from './locks.js';
import { SUBJECT_FIELD_NAMES } from './subject.js';

/**
 * Every action code the server writes into the audit trail, with the name people read (the trail,
 * the 操作记录 drawer, the CSV export). The server's audit writer only accepts these codes, so a new
 * kind of audit row cannot be added without a name; a test checks the server's sources against it.
 */
export const AUDIT_ACTION_NAMES = {
  'subject.create': '添加患者',
  'subject.update': '修改患者信息',
  'subject.state': '修改状态',
  'subject.delete': '删除患者',
  'subject.restore': '恢复患者',
  'subject.site': '转移中心',
  'lock.set': '锁定',
  'lock.release': '解锁',
  'study.reopen': '重新开启项目',
  'subject.sign': '签名',
  'subject.sign_invalidated': '签名失效',
  'crf.create': '新建表单记录',
  'item.update': '保存',
  'crf.submit': '提交',
  'crf.delete': '删除记录',
  'sdv.verify': 'SDV',
  'sdv.unverify': '取消SDV',
  'sdv.clear': 'SDV失效',
  'doubt.open': '发起质疑',
  'doubt.reply': '回复质疑',
  'doubt.reopen': '重新开启质疑',
  'doubt.close': '关闭质疑',
  'doubt.system_open': '系统发起质疑',
  'doubt.system_close': '系统关闭质疑',
  'crf.comment': '添加批注',
  'double_entry.save': '保存双录入',
  'double_entry.done': '完成双录入',
  'double_entry.decision': '双录入核对差异',
  'double_entry.reconcile': '双录入核对',
  'study.crf.double_entry': '设置双份录入',
  'sae.create': '严重不良事件报告开始计时',
  'sae.deadline': '修改SAE报告时限',
  'sae.withdraw': '撤销SAE报告',
  'sae.submit': '提交SAE报告',
  'sae.followup': '创建SAE随访报告',
  'sae.export': '导出SAE报告',
  'study.safety': '不良事件模块设置',
  'coding.dictionary': '加载编码词典',
  'coding.items': '设置编码条目',
  'coding.code': '医学编码',
  'coding.approve': '编码审核',
  'study.create': '创建项目',
  'study.config': '修改项目设置',
  'study.delete': '删除项目',
  'study.golive': '上线',
  'study.disease.create': '新增病种',
  'study.disease.update': '修改病种',
  'study.disease.delete': '删除病种',
  'study.role.create': '新增项目角色',
  'study.role.update': '修改项目角色',
  'study.role.delete': '删除项目角色',
  'study.personnel.add': '添加项目人员',
  'study.personnel.update': '修改项目人员',
  'study.personnel.remove': '移除项目人员',
  'api_token.create': '创建API令牌',
  'api_token.revoke': '撤销API令牌',
  'study.crf.upload': '上传CRF',
  'study.crf.delete': '删除CRF',
  'study.crf.draft': '保存CRF草稿',
  'study.crf.draft_discard': '放弃CRF草稿',
  'study.crf.publish': '发布CRF（方案修订）',
  'crf.migrate': '迁移表单版本',
  'study.stage.create': '新增阶段',
  'study.stage.update': '修改阶段',
  'study.stage.delete': '删除阶段',
  'study.stage.crf.add': '阶段添加表单',
  'study.stage.crf.update': '修改阶段表单',
  'study.stage.crf.remove': '阶段移除表单',
  'follow.plan.create': '新增随访计划',
  'follow.plan.update': '修改随访计划',
  'follow.plan.delete': '删除随访计划',
  'follow.schedule': '生成随访',
  'follow.reschedule': '随访改期',
  'follow.date': '修改计划日期',
  'follow.lost': '标记失访',
  'follow.delete': '删除随访',
  'follow.restore': '恢复随访',
  'follow.custom': '添加随访',
  'follow.complete': '随访完成',
  'follow.plan.draft': '保存随访计划草稿',
  'follow.plan.draft_discard': '放弃随访计划草稿',
  'follow.plan.publish': '发布随访计划修订',
  'randomization.config': '保存随机化配置',
  'randomization.assign': '随机入组',
  'randomization.unblind': '紧急揭盲',
  'randomization.unblind_all': '全部揭盲',
  'randomization.export': '导出随机分配表',
  'randomization.export_results': '导出随机结果',
  'medical.create': '新增病历资料',
  'medical.update': '修改病历资料',
  'medical.delete': '删除病历资料',
  'medical.crf': '关联源文件',
  'patient.settings': '修改患者端设置',
  'patient.bind_code': '发放绑定码',
  'patient.bind': '患者绑定',
  'patient.unbind': '解除绑定',
  'consult.ask': '新增咨询',
  'consult.answer': '回复咨询',
  'consult.close': '关闭咨询',
  'lab_range.create': '添加参考范围',
  'lab_range.update': '修改参考范围',
  'lab_range.delete': '删除参考范围',
  'lab_range.import': '导入参考范围',
  'message.rules': '修改患者提醒规则',
  'message.opt_out': '退订患者提醒',
  'message.opt_in': '恢复患者提醒',
  // Platform settings (系统设置), on the platform's own chain (study 0), not a study's.
  'system.security': '修改系统设置',
  'system.user.expiry': '修改账号有效期',
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTION_NAMES;

export const isAuditAction = (code: string): code is AuditAction => Object.hasOwn(AUDIT_ACTION_NAMES, code);

/** The Chinese name of an action; a code this version does not know (an older or newer server) stays as it is. */
export function auditActionName(code: string): string {
  return isAuditAction(code) ? AUDIT_ACTION_NAMES[code] : code;
}

/** The SDV mark of a whole form is kept under this item name. */
export const FORM_SDV_ITEM = '__form__';

/** Subject record states (0 在组, 1 完成, 2 退出). */
export const SUBJECT_STATE_NAMES: Readonly<Record<number, string>> = { 0: '在组', 1: '完成', 2: '退出' };

const DEFAULT_FIELD_LABELS: Readonly<Record<string, string>> = {
  identificationCode: '编号',
  subjectName: '患者姓名',
  gender: '性别',
  birth: '出生日期',
  mobile: '手机号',
  idNumber: '身份证号',
  diseaseCode: '病种',
  deptId: '所属中心',
};

/** What the trail needs, beyond the row itself, to put words on it. */
export interface AuditTextContext {
  /** The items of the CRF version the row refers to. */
  nodes?: ReadonlyMap<string, CrfNode>;
  /** The values kept beside the item (its chosen unit, its addition text) before and after the change. */
  before?: Readonly<Record<string, unknown>>;
  after?: Readonly<Record<string, unknown>>;
  /** Original file names by file key. */
  fileNames?: ReadonlyMap<string, string>;
  /** The study's labels of the patient fields (its base configuration). */
  fieldLabels?: Readonly<Record<string, string>>;
  /** Disease code → name. */
  diseaseNames?: ReadonlyMap<string, string>;
  /** Department (site, 中心) id → name, for a patient's site; without it a site reads as its id. */
  siteNames?: ReadonlyMap<number, string>;
}

export interface AuditRowFacts {
  action: string;
  itemName: string | null;
  oldValue: unknown;
  newValue: unknown;
}

export interface AuditRowText {
  actionName: string;
  /** The item's title, the patient field's label, 整表 for a whole-form mark; '' when the row has none. */
  itemTitle: string;
  oldText: string;
  newText: string;
}

/** Any JSON value in words, for rows the trail has no item definition for (set-up rows). */
export function plainText(value: unknown): string {
  if (isEmptyValue(value)) return '';
  if (Array.isArray(value)) return value.map(plainText).join('、');
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => !isEmptyValue(v))
      .map(([k, v]) => `${k}：${plainText(v)}`)
      .join('；');
  }
  return String(value);
}

function fieldText(field: string | null, value: unknown, ctx: AuditTextContext): string {
  if (isEmptyValue(value)) return '';
  if (field === 'gender') return value === 1 ? '男' : value === 0 ? '女' : plainText(value);
  if (field === 'diseaseCode') return ctx.diseaseNames?.get(String(value)) ?? plainText(value);
  if (field === 'state') return SUBJECT_STATE_NAMES[Number(value)] ?? plainText(value);
  if (field === 'deptId') return ctx.siteNames?.get(Number(value)) ?? plainText(value);
  return plainText(value);
}

const fieldLabel = (field: string, ctx: AuditTextContext) =>
  ctx.fieldLabels?.[field] || DEFAULT_FIELD_LABELS[field] || field;

/** A record's values in words, item by item in the form's words (a deleted record's snapshot). */
function recordText(value: unknown, ctx: AuditTextContext): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return plainText(value);
  const values = value as Record<string, unknown>;
  const nodes = ctx.nodes ?? new Map<string, CrfNode>();
  return Object.entries(values)
    .filter(([name, v]) => !isEmptyValue(v) && !name.endsWith('_unit') && !name.endsWith('_addition'))
    .map(([name, v]) => `${itemTitle(nodes, name)}：${valueText(nodes.get(name), v, values, ctx)}`)
    .join('；');
}

const textOf = (value: unknown) => (typeof value === 'string' ? value : plainText(value));

/**
 * An audit row in words (one rule for the trail on the page and in the export): the action's name,
 * the item's title from the CRF version the row was written under, and old and new values with
 * choice labels, units and file names instead of codes, keys and numbers.
 */
export function describeAuditRow(row: AuditRowFacts, ctx: AuditTextContext = {}): AuditRowText {
  const actionName = auditActionName(row.action);
  const nodes = ctx.nodes ?? new Map<string, CrfNode>();
  const title = (name: string | null) =>
    !name ? '' : name === FORM_SDV_ITEM ? '整表' : ctx.nodes ? itemTitle(nodes, name) : name;
  const out = (itemTitle: string, oldText: string, newText: string) => ({ actionName, itemTitle, oldText, newText });
  switch (row.action) {
    case 'item.update': {
      const node = row.itemName ? nodes.get(row.itemName) : undefined;
      return out(
        title(row.itemName),
        valueText(node, row.oldValue, ctx.before, ctx),
        valueText(node, row.newValue, ctx.after, ctx),
      );
    }
    case 'crf.delete':
      return out('', recordText(row.oldValue, ctx), '');
    case 'sdv.verify':
    case 'sdv.unverify':
    case 'sdv.clear':
    case 'crf.create':
    case 'crf.submit':
      return out(title(row.itemName), '', '');
    case 'doubt.open':
    case 'doubt.reply':
    case 'doubt.reopen':
    case 'doubt.close':
    case 'doubt.system_open':
    case 'doubt.system_close':
    case 'crf.comment':
      return out(title(row.itemName), textOf(row.oldValue), textOf(row.newValue));
    case 'subject.create': {
      const fields = (row.newValue ?? {}) as Record<string, unknown>;
      const text = SUBJECT_FIELD_NAMES.filter((f) => !isEmptyValue(fields[f]))
        .map((f) => `${fieldLabel(f, ctx)}：${fieldText(f, fields[f], ctx)}`)
        .join('；');
      return out('', '', text);
    }
    case 'subject.update':
      return out(
        row.itemName ? fieldLabel(row.itemName, ctx) : '',
        fieldText(row.itemName, row.oldValue, ctx),
        fieldText(row.itemName, row.newValue, ctx),
      );
    case 'subject.state':
      return out('状态', fieldText('state', row.oldValue, ctx), fieldText('state', row.newValue, ctx));
    case 'subject.site':
      return out('中心', fieldText('deptId', row.oldValue, ctx), fieldText('deptId', row.newValue, ctx));
    case 'subject.sign': {
      const meaning = (row.newValue as { meaning?: unknown } | null)?.meaning;
      return out('', '', typeof meaning === 'string' ? meaning : '');
    }
    case 'subject.sign_invalidated':
    case 'subject.delete':
    case 'subject.restore':
      return out('', '', '');
    case 'lock.set':
    case 'lock.release': {
      // What was locked reads by its scope (数据库锁定…) and, for a site, the site's name; the reason is the row's own.
      const { scope, targetId } = (row.newValue ?? {}) as { scope?: unknown; targetId?: unknown };
      if (typeof scope !== 'string' || !Object.hasOwn(LOCK_SCOPE_NAMES, scope)) {
        return out('', '', plainText(row.newValue));
      }
      const site = scope === 'site' ? fieldText('deptId', targetId, ctx) : '';
      return out(LOCK_SCOPE_NAMES[scope as LockScope], '', site);
    }
    case 'study.reopen':
      return out('状态', '已结束', '进行中');
    default:
      return out(row.itemName ?? '', plainText(row.oldValue), plainText(row.newValue));
  }
}
