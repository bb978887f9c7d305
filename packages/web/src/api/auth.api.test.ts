import { afterEach, describe, expect, it, vi } from 'vitest';
import { authApi } from './auth.api';
import { http } from './request';

afterEach(() => vi.restoreAllMocks());

describe('password calls', () => {
  it('AUTH-14: change and reset use PUT /api/system/user/password and PUT /api/system/user/password/reset (AUTH-11, AUTH-12)', async () => {
    const put = vi.spyOn(http, 'put').mockResolvedValue({ code: 200, msg: '修改成功', data: null });
    await authApi.changePassword({ userId: 7, oldPassword: 'Admin@123', newPassword: 'Nurse@2024' });
    await authApi.resetPassword({ userId: 7, newPassword: 'Reset@123' });
    expect(put.mock.calls.map(([url, body]) => [url, body])).toEqual([
      ['/api/system/user/password', { userId: 7, oldPassword: 'Admin@123', newPassword: 'Nurse@2024' }],
      ['/api/system/user/password/reset', { userId: 7, newPassword: 'Reset@123' }],
    ]);
  });
});
