import { describe, expect, it } from 'vitest';
import { allStudyPermissionKeys, formatSerialNumber, STUDY_BUTTONS } from './study.js';

describe('study permissions and serial numbers', () => {
  it('lists every button key and six actions per CRF', () => {
    const keys = allStudyPermissionKeys([4, 9]);
    expect(keys).toContain('btn:business.crf.save');
    expect(keys).toContain('crf:9:sdv');
    expect(keys).toHaveLength(STUDY_BUTTONS.length + 12);
  });

  it('pads the counter and keeps a longer one whole', () => {
    expect(formatSerialNumber('LS-', 4, 7)).toBe('LS-0007');
    expect(formatSerialNumber('', 2, 123)).toBe('123');
  });
});
