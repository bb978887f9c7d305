import type { AuditAction } from './audit.js';
import { buttonKey, type StudyButton, type StudyButtonKey } from './study.js';

const MEDICAL: StudyButton = 'project.medical.view';
const CONSULT: StudyButton = 'business.consult.view';

/**
 * Who reads an audit row, by what it records: the study button of the page that shows that thing, or null for
 * what every member of the study reads through the study's own read calls (the patient's fields, identifiers
 * masked by the trail's own rule; the study's set-up: settings, roles, staff, CRFs, stages; follow-up plans and
 * visits; randomization, whose arms have their own rule; patient-side bindings and settings). A row carrying a
 * CRF (form values, SDV, queries, a medical record's link) is read only with that CRF's view key on top of
 * this, whatever its action. Every action has an entry (the type requires one), so a new kind of audit row
 * cannot be written before it is decided who reads it.
 */
export const AUDIT_READ_BUTTON = {
  'subject.create': null,
  'subject.update': null,
  'subject.state': null,
  'subject.delete': null,
  'subject.restore': null,
  'subject.site': null,
  'lock.set': null,
  'lock.release': null,
  'study.reopen': null,
  'subject.sign': null,
  'subject.sign_invalidated': null,
  'crf.create': null,
  'item.update': null,
  'crf.submit': null,
  'crf.delete': null,
  'sdv.verify': null,
  'sdv.unverify': null,
  'sdv.clear': null,
  'doubt.open': null,
  'doubt.reply': null,
  'doubt.reopen': null,
  'doubt.close': null,
  'doubt.system_open': null,
  'doubt.system_close': null,
  // A field comment (批注) is read with its form, as the item panel shows it: the CRF's view key, nothing more.
  'crf.comment': null,
  // 双份录入: an entry's values are blind to the other entering user, so its rows (and the decisions naming both
  // sides) are read with 双录入核对; the reconciled values themselves are the record's own item.update rows.
  'double_entry.save': 'business.doubleEntry.reconcile',
  'double_entry.done': 'business.doubleEntry.reconcile',
  'double_entry.decision': 'business.doubleEntry.reconcile',
  'double_entry.reconcile': null,
  'study.crf.double_entry': null,
  'study.create': null,
  'study.config': null,
  'study.delete': null,
  'study.golive': null,
  'study.disease.create': null,
  'study.disease.update': null,
  'study.disease.delete': null,
  'study.role.create': null,
  'study.role.update': null,
  'study.role.delete': null,
  'study.personnel.add': null,
  'study.personnel.update': null,
  'study.personnel.remove': null,
  'api_token.create': null,
  'api_token.revoke': null,
  'study.crf.upload': null,
  'study.crf.delete': null,
  'study.crf.draft': null,
  'study.crf.draft_discard': null,
  'study.crf.publish': null,
  'crf.migrate': null,
  'study.stage.create': null,
  'study.stage.update': null,
  'study.stage.delete': null,
  'study.stage.crf.add': null,
  'study.stage.crf.update': null,
  'study.stage.crf.remove': null,
  'follow.plan.create': null,
  'follow.plan.update': null,
  'follow.plan.delete': null,
  'follow.schedule': null,
  'follow.reschedule': null,
  'follow.date': null,
  'follow.lost': null,
  'follow.delete': null,
  'follow.restore': null,
  'follow.custom': null,
  'follow.complete': null,
  'follow.plan.draft': null,
  'follow.plan.draft_discard': null,
  'follow.plan.publish': null,
  'randomization.config': null,
  'randomization.assign': null,
  'randomization.unblind': null,
  'randomization.unblind_all': null,
  'randomization.export': null,
  'randomization.export_results': null,
  // A medical record's title, note and files, as 病历管理 shows them (GET /api/v1/medicals needs the same key).
  'medical.create': MEDICAL,
  'medical.update': MEDICAL,
  'medical.delete': MEDICAL,
  'medical.crf': MEDICAL,
  'patient.settings': null,
  'patient.bind_code': null,
  'patient.bind': null,
  'patient.unbind': null,
  // A question and its answer, as 在线咨询 shows them (advisory/manager/list needs the same key).
  'consult.ask': CONSULT,
  'consult.answer': CONSULT,
  'consult.close': CONSULT,
  // An SAE report's clock and states, as the AE page shows them (GET /api/business/safety/saes needs the same key).
  'sae.create': 'business.safety',
  'sae.deadline': 'business.safety',
  'sae.withdraw': 'business.safety',
  'sae.submit': 'business.safety',
  'sae.followup': 'business.safety',
  'sae.export': 'business.safety',
  // 医学编码: read with the coder's key (and a coded item's row with its form's view key too, as every CRF row).
  'coding.dictionary': 'business.coding',
  'coding.items': 'business.coding',
  'coding.code': 'business.coding',
  'coding.approve': 'business.coding',
  'study.safety': null,
  // 参考范围: a site's laboratory set-up, no patient's data; read like the study's other set-up rows.
  'lab_range.create': null,
  'lab_range.update': null,
  'lab_range.delete': null,
  'lab_range.import': null,
  // 患者提醒: the rules are set-up; an opt-out names the patient, read with the key that shows the messages.
  'message.rules': null,
  'message.opt_out': 'business.messages',
  'message.opt_in': 'business.messages',
  // On the platform chain (study 0), which no study's trail reads; 系统设置 shows it to administrators.
  'system.security': null,
  'system.user.expiry': null,
} as const satisfies Record<AuditAction, StudyButton | null>;

/** The study permission key reading a row of this action needs (beyond its CRF's view key), or null. */
export function auditReadKey(action: string): StudyButtonKey | null {
  const button = Object.hasOwn(AUDIT_READ_BUTTON, action) ? AUDIT_READ_BUTTON[action as AuditAction] : null;
  return button === null ? null : buttonKey(button);
}

/** The actions whose rows a caller may not read, given what the caller holds (for a `NOT IN` in the trail's SQL). */
export function unreadableAuditActions(holds: (key: StudyButtonKey) => boolean): AuditAction[] {
  return (Object.keys(AUDIT_READ_BUTTON) as AuditAction[]).filter((action) => {
    const key = auditReadKey(action);
    return key !== null && !holds(key);
  });
}
