import { describe, expect, it } from 'vitest';
import {
  allStudyPermissionKeys,
  formatSerialNumber,
  fullRoleKeys,
  isStudyPermissionKey,
  roleHolds,
  STUDY_BUTTONS,
} from './study.js';

describe('study permissions and serial numbers', () => {
  it('lists every button key and six actions per CRF', () => {
    const keys = allStudyPermissionKeys([4, 9]);
    expect(keys).toContain('btn:business.crf.save');
    expect(keys).toContain('crf:9:sdv');
    expect(keys).toHaveLength(STUDY_BUTTONS.length + 12);
  });

  it('回复咨询 includes 查看咨询, and a full role need not store what it holds through another key', () => {
    expect(roleHolds(['btn:business.consult.reply'], 'btn:business.consult.view')).toBe(true);
    expect(roleHolds(['btn:business.consult.view'], 'btn:business.consult.reply')).toBe(false);
    expect(roleHolds([], 'btn:business.consult.view')).toBe(false);
    expect(roleHolds(['crf:4:view'], 'crf:4:view')).toBe(true);
    const full = fullRoleKeys([4]);
    expect(full).not.toContain('btn:business.consult.view');
    expect(full).toContain('btn:business.consult.reply');
    expect(full).toHaveLength(allStudyPermissionKeys([4]).length - 1);
  });

  it('recognises the keys a study role can hold, and nothing else', () => {
    expect(allStudyPermissionKeys([4]).every(isStudyPermissionKey)).toBe(true);
    for (const other of [
      'business.lock',
      'btn:business.nothing',
      'crf:4:erase',
      'crf:x:view',
      'crf:4:view:extra',
      '',
    ]) {
      expect(isStudyPermissionKey(other)).toBe(false);
    }
  });

  it('pads the counter and keeps a longer one whole', () => {
    expect(formatSerialNumber('LS-', 4, 7)).toBe('LS-0007');
    expect(formatSerialNumber('', 2, 123)).toBe('123');
  });
});
