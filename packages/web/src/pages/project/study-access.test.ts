import { describe, expect, it } from 'vitest';
import type { StudyButton, StudyPermissionKey } from '@ecrf/core';
import { canInStudy, type StudyAccessSource } from './study-access';

const nurse = { permissions: ['btn:business.subject.add', 'crf:3:save'] };

describe('study access', () => {
  it.each<[string, StudyAccessSource, StudyButton | StudyPermissionKey, boolean]>([
    ['a role holding the button key', { permissions: [], myRole: nurse }, 'business.subject.add', true],
    ['the same key written in full', { permissions: [], myRole: nurse }, 'btn:business.subject.add', true],
    ['a CRF action key', { permissions: [], myRole: nurse }, 'crf:3:save', true],
    ['a button the role lacks', { permissions: [], myRole: nurse }, 'business.subject.remove', false],
    [
      '回复咨询 includes 查看咨询',
      { permissions: [], myRole: { permissions: ['btn:business.consult.reply'] } },
      'business.consult.view',
      true,
    ],
    [
      '查看咨询 does not include 回复咨询',
      { permissions: [], myRole: { permissions: ['btn:business.consult.view'] } },
      'business.consult.reply',
      false,
    ],
    ['no role in the study', { permissions: ['sys:user:add'], myRole: null }, 'business.subject.add', false],
    ['study:manage without a role', { permissions: ['study:manage'], myRole: null }, 'business.subject.remove', true],
    ['the administrator *:*:*', { permissions: ['*:*:*'], myRole: undefined }, 'crf:9:submit', true],
    [
      'system button codes do not count as study keys',
      { permissions: ['btn:business.subject.add'], myRole: null },
      'business.subject.add',
      false,
    ],
  ])('%s', (_case, source, code, allowed) => {
    expect(canInStudy(source, code)).toBe(allowed);
  });
});
