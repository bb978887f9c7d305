import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signatureLines, signatureText, signatureTime, signaturesInOrder, SIGNATURE_TEXT } from './signature-text.js';

// 2026-12-07 14:32:40 and 15:01:05 in Shanghai (UTC+8).
const signedAt = '2026-12-07T06:32:40.000Z';
const changedAt = '2026-12-07T07:01:05.000Z';
const signature = { signer: '张医生', meaning: '确认数据真实准确', signedAt, invalidatedAt: null };

describe('signature text (Part 11 §11.50: name, date and time, meaning)', () => {
  it('a valid signature names the signer, the study-zone time to the minute and the meaning', () => {
    expect(signatureText(signature, 'Asia/Shanghai')).toBe('研究者签名：张医生 2026-12-07 14:32（确认数据真实准确）');
  });

  it('a voided signature says so first, with when the data changed, and keeps who signed, when and why', () => {
    expect(signatureText({ ...signature, invalidatedAt: changedAt }, 'Asia/Shanghai')).toBe(
      '签名已失效（数据修改于 2026-12-07 15:01）原研究者签名：张医生 2026-12-07 14:32（确认数据真实准确）',
    );
  });

  it('times are the study zone’s wall clock, whatever the runtime’s zone; Date instants as ISO text', () => {
    expect(signatureText(signature, 'Europe/Berlin')).toBe('研究者签名：张医生 2026-12-07 07:32（确认数据真实准确）');
    expect(signatureText(signature, 'UTC')).toContain('2026-12-07 06:32');
    expect(signatureText({ ...signature, signedAt: new Date(signedAt) }, 'Asia/Shanghai')).toBe(
      signatureText(signature, 'Asia/Shanghai'),
    );
    // The platform's default zone is China Standard Time; midnight crossings land on the zone's date.
    expect(signatureTime('2026-12-31T16:05:00Z')).toBe('2027-01-01 00:05');
  });

  it('an empty meaning leaves no empty brackets', () => {
    expect(signatureText({ ...signature, meaning: '  ' }, 'Asia/Shanghai')).toBe('研究者签名：张医生 2026-12-07 14:32');
  });

  it('lines read oldest first, ties by id, whatever order they are given in', () => {
    const rows = [
      { id: 3, ...signature, signedAt: '2026-12-08T01:00:00Z' },
      { id: 2, ...signature, signedAt, invalidatedAt: changedAt },
      { id: 1, ...signature, signedAt, invalidatedAt: changedAt },
    ];
    expect(signaturesInOrder(rows).map((r) => r.id)).toEqual([1, 2, 3]);
    const lines = signatureLines(rows, 'Asia/Shanghai');
    expect(lines[0]!.startsWith(SIGNATURE_TEXT.void)).toBe(true);
    expect(lines[2]).toBe('研究者签名：张医生 2026-12-08 09:00（确认数据真实准确）');
  });

  it('every line carries the signer, the meaning and the signing minute; a voided one starts with 签名已失效', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() === s && s.length > 0),
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() === s && s.length > 0),
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.option(fc.integer({ min: 0, max: 10 ** 9 }), { nil: null }),
        (signer, meaning, at, later) => {
          const invalidatedAt = later === null ? null : new Date(at.getTime() + later);
          const text = signatureText({ signer, meaning, signedAt: at, invalidatedAt }, 'Asia/Shanghai');
          expect(text).toContain(
            `${SIGNATURE_TEXT.label}：${signer} ${signatureTime(at, 'Asia/Shanghai')}（${meaning}）`,
          );
          expect(text.startsWith(SIGNATURE_TEXT.void)).toBe(invalidatedAt !== null);
        },
      ),
    );
  });
});
