import { describe, expect, it } from 'vitest';
import { confirmPasswordError, newPasswordError, oldPasswordError } from './change-password-rules';

describe('change-password rules', () => {
  it('AUTH-15: the original password is required: 请输入原始密码', () => {
    expect(oldPasswordError('')).toBe('请输入原始密码');
    expect(oldPasswordError(undefined)).toBe('请输入原始密码');
    expect(oldPasswordError('old-pass')).toBeNull();
  });

  it('AUTH-16: the new password is required: 请输入密码', () => {
    expect(newPasswordError('', 'old-pass')).toBe('请输入密码');
  });

  it('AUTH-17: a new password equal to the original is rejected: 不能和原始密码相同!', () => {
    expect(newPasswordError('same-pass', 'same-pass')).toBe('不能和原始密码相同!');
  });

  it('AUTH-18/AUTH-19: the new password is 6 to under 20 characters', () => {
    expect(newPasswordError('12345', 'old-pass')).toBe('密码不可少于6字符');
    expect(newPasswordError('123456', 'old-pass')).toBeNull();
    expect(newPasswordError('x'.repeat(19), 'old-pass')).toBeNull();
    expect(newPasswordError('x'.repeat(20), 'old-pass')).toBe('密码不可超过20字符');
  });

  it('AUTH-09: in reset mode there is no original password to compare with', () => {
    expect(newPasswordError('Reset@123', undefined)).toBeNull();
  });

  it('AUTH-20: confirm is required: 请再次输入密码', () => {
    expect(confirmPasswordError('', 'new-pass')).toBe('请再次输入密码');
  });

  it('AUTH-21: confirm must equal the new password: 两次输入密码不一致!', () => {
    expect(confirmPasswordError('new-pass-2', 'new-pass')).toBe('两次输入密码不一致!');
    expect(confirmPasswordError('new-pass', 'new-pass')).toBeNull();
  });

  it('AUTH-22: confirm follows the same length rules', () => {
    expect(confirmPasswordError('123', '123')).toBe('密码不可少于6字符');
    expect(confirmPasswordError('y'.repeat(25), 'y'.repeat(25))).toBe('密码不可超过20字符');
  });
});
