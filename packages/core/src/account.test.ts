import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MSG } from './messages.js';
import { isMobile, passwordChangeSchema, passwordLengthError, userCreateSchema, userNameSchema } from './account.js';

const firstMessage = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  result.success ? null : result.error!.issues[0]!.message;

describe('user name', () => {
  it('SYS-16/SYS-17: is required and must be a mainland mobile number', () => {
    expect(firstMessage(userNameSchema.safeParse(''))).toBe(MSG.userNameRequired);
    expect(firstMessage(userNameSchema.safeParse(undefined))).toBe(MSG.userNameRequired);
    expect(firstMessage(userNameSchema.safeParse('12812345678'))).toBe(MSG.userNameMobile);
    expect(firstMessage(userNameSchema.safeParse('1381234567'))).toBe(MSG.userNameMobile);
    expect(userNameSchema.safeParse('13812345678').success).toBe(true);
  });

  it('accepts exactly 11 digits starting 1 then 3-9 (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 14 }), (s) => {
        expect(isMobile(s)).toBe(/^1[3-9][0-9]{9}$/.test(s));
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 9 }), fc.stringMatching(/^[0-9]{9}$/), (second, rest) => {
        expect(isMobile(`1${second}${rest}`)).toBe(true);
      }),
    );
  });
});

describe('password length', () => {
  it('SYS-19/AUTH-18/AUTH-19: 6 to under 20 characters', () => {
    expect(passwordLengthError('12345')).toBe(MSG.passwordTooShort);
    expect(passwordLengthError('123456')).toBeNull();
    expect(passwordLengthError('x'.repeat(19))).toBeNull();
    expect(passwordLengthError('x'.repeat(20))).toBe(MSG.passwordTooLong);
  });

  it('agrees with the schema for every length (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), (password) => {
        const schemaOk = userCreateSchema.shape.password.safeParse(password).success;
        expect(schemaOk).toBe(passwordLengthError(password) === null);
      }),
    );
  });
});

describe('user record', () => {
  const valid = { userName: '13812345678', password: 'abcdef', name: '张三', deptId: 1, roleIds: [1] };

  it('SYS-20/SYS-21/SYS-22/SYS-23: name, department and roles are required; remark at most 60', () => {
    expect(userCreateSchema.safeParse(valid).success).toBe(true);
    expect(firstMessage(userCreateSchema.safeParse({ ...valid, name: ' ' }))).toBe(MSG.nameRequired);
    expect(firstMessage(userCreateSchema.safeParse({ ...valid, deptId: undefined }))).toBe(MSG.deptRequired);
    expect(firstMessage(userCreateSchema.safeParse({ ...valid, roleIds: [] }))).toBe(MSG.rolesRequired);
    expect(firstMessage(userCreateSchema.safeParse({ ...valid, roleIds: undefined }))).toBe(MSG.rolesRequired);
    expect(userCreateSchema.safeParse({ ...valid, remark: 'x'.repeat(60) }).success).toBe(true);
    expect(firstMessage(userCreateSchema.safeParse({ ...valid, remark: 'x'.repeat(61) }))).toBe(MSG.remarkTooLong);
  });
});

describe('password change', () => {
  it('AUTH-15/AUTH-16/AUTH-17: original and new are required and must differ', () => {
    expect(firstMessage(passwordChangeSchema.safeParse({ newPassword: 'abcdef' }))).toBe(MSG.oldPasswordRequired);
    expect(firstMessage(passwordChangeSchema.safeParse({ oldPassword: 'abcdef' }))).toBe(MSG.passwordRequired);
    expect(firstMessage(passwordChangeSchema.safeParse({ oldPassword: 'abcdef', newPassword: 'abcdef' }))).toBe(
      MSG.passwordSameAsOld,
    );
    expect(passwordChangeSchema.safeParse({ oldPassword: 'abcdef', newPassword: 'abcdeg' }).success).toBe(true);
  });
});
