import { describe, expect, it } from 'vitest';
import { AUDIT_ACTION_NAMES, type AuditAction } from './audit.js';
import { AUDIT_READ_BUTTON, auditReadKey, unreadableAuditActions } from './audit-read.js';

describe('who reads an audit row (AUDIT_READ_BUTTON)', () => {
  it('names a reading rule for every action the trail can hold, and no other', () => {
    expect(Object.keys(AUDIT_READ_BUTTON).sort()).toEqual(Object.keys(AUDIT_ACTION_NAMES).sort());
  });

  it.each([
    ['medical.create', 'btn:project.medical.view'],
    ['medical.update', 'btn:project.medical.view'],
    ['medical.delete', 'btn:project.medical.view'],
    ['medical.crf', 'btn:project.medical.view'],
    ['consult.ask', 'btn:business.consult.view'],
    ['consult.answer', 'btn:business.consult.view'],
    ['consult.close', 'btn:business.consult.view'],
    ['sae.create', 'btn:business.safety'],
    ['sae.submit', 'btn:business.safety'],
    ['coding.code', 'btn:business.coding'],
    // 双份录入 (issue 37): an entry's values are blind to the other entering user.
    ['double_entry.save', 'btn:business.doubleEntry.reconcile'],
    ['double_entry.reconcile', null],
    ['subject.create', null],
    ['item.update', null],
    ['study.role.update', null],
    ['randomization.assign', null],
    // A code this version does not write (an older or newer server's) is read as before: by its CRF only.
    ['legacy.code', null],
  ])('%s needs %s', (action, key) => {
    expect(auditReadKey(action)).toBe(key);
  });

  it('hides the actions of the keys a caller lacks, and nothing from a caller holding them all', () => {
    const medicalOnly = unreadableAuditActions((key) => key === 'btn:project.medical.view');
    expect(medicalOnly.sort()).toEqual([
      'coding.approve',
      'coding.code',
      'coding.dictionary',
      'coding.items',
      'consult.answer',
      'consult.ask',
      'consult.close',
      'double_entry.decision',
      'double_entry.done',
      'double_entry.save',
      'message.opt_in',
      'message.opt_out',
      'sae.create',
      'sae.deadline',
      'sae.export',
      'sae.followup',
      'sae.submit',
      'sae.withdraw',
    ]);
    const none = unreadableAuditActions(() => false);
    const byKey = (a: AuditAction) =>
      ['medical.', 'consult.', 'sae.', 'coding.', 'double_entry.', 'message.opt_'].some((prefix) =>
        a.startsWith(prefix),
      ) && a !== 'double_entry.reconcile';
    expect(none.filter((a: AuditAction) => !byKey(a))).toEqual([]);
    expect(none).toHaveLength(22);
    expect(unreadableAuditActions(() => true)).toEqual([]);
  });
});
