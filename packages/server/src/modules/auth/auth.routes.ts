import {
  loginBodySchema,
  logoutBodySchema,
  passwordChangeSchema,
  passwordResetSchema,
  refreshBodySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { fileCookieHeader, requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import * as auth from './auth.service.js';
import { issueCaptcha } from './captcha.service.js';

const tags = ['登录与账户'];

export function authRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api/ignore/common/captcha',
    {
      schema: { tags, summary: '获取验证码' },
      // Each captcha is a stored answer: unbounded issuing would fill the store. Switched off,
      // nothing is stored and sign-in pages (browser tests among them) may ask freely.
      config: ctx.config.captchaEnabled
        ? { rateLimit: { max: ctx.config.captchaRateLimitPerMinute, timeWindow: 60_000 } }
        : {},
    },
    async () => ok(await issueCaptcha(ctx)),
  );

  app.post(
    '/api/ignore/sys/login',
    {
      schema: {
        tags,
        summary: '登录',
        body: loginBodySchema,
      },
      config: {
        module: '登录',
        action: '登录',
        rateLimit: { max: ctx.config.loginRateLimitPerMinute, timeWindow: 60_000 },
      },
    },
    async (request, reply) => {
      const result = await auth
        .login(ctx, request.body, { ip: request.ip, userAgent: request.headers['user-agent'] })
        .catch((err: unknown) => {
          const retryAfter =
            err instanceof AppError ? (err.data as { retryAfter?: number } | null)?.retryAfter : undefined;
          if (retryAfter) reply.header('retry-after', String(retryAfter));
          throw err;
        });
      reply.header(
        'set-cookie',
        fileCookieHeader(result.token, ctx.config.accessTokenSeconds, request.protocol === 'https'),
      );
      return ok(result, '登录成功');
    },
  );

  app.post(
    '/api/ignore/sys/refresh',
    {
      schema: { tags, summary: '刷新令牌', body: refreshBodySchema },
      config: { rateLimit: { max: ctx.config.loginRateLimitPerMinute * 4, timeWindow: 60_000 } },
    },
    async (request, reply) => {
      const result = await auth.refresh(ctx, request.body.refreshToken);
      reply.header(
        'set-cookie',
        fileCookieHeader(result.token, ctx.config.accessTokenSeconds, request.protocol === 'https'),
      );
      return ok(result);
    },
  );

  app.post(
    '/api/sys/logout',
    {
      schema: {
        tags,
        summary: '退出登录',
        body: logoutBodySchema,
      },
      config: { module: '登录', action: '退出', allowWhilePasswordMustChange: true },
    },
    async (request, reply) => {
      await auth.logout(ctx, requireUser(request));
      reply.header('set-cookie', fileCookieHeader(null, 0, request.protocol === 'https'));
      return ok(null, '退出成功');
    },
  );

  app.get(
    '/api/sys/login/getInfo',
    { schema: { tags, summary: '当前用户信息' }, config: { allowWhilePasswordMustChange: true } },
    async (request) => ok(await auth.getInfo(ctx, requireUser(request))),
  );

  // The browser of a person at work sends this now and then (idle sign-out): the request itself records the
  // session's activity, in the session check every request goes through.
  app.get(
    '/api/sys/session/ping',
    { schema: { tags, summary: '保持会话活动' }, config: { allowWhilePasswordMustChange: true } },
    async () => ok(null),
  );

  app.get(
    '/api/sys/login/getRouters',
    { schema: { tags, summary: '当前用户菜单' }, config: { allowWhilePasswordMustChange: true } },
    async (request) => ok(await auth.getRouters(ctx, requireUser(request))),
  );

  app.put(
    '/api/system/user/password',
    {
      schema: { tags, summary: '修改本人密码', body: passwordChangeSchema },
      config: { module: '个人中心', action: '修改密码', allowWhilePasswordMustChange: true },
    },
    async (request) => {
      await auth.changePassword(ctx, requireUser(request), request.body);
      return ok(null, '修改成功');
    },
  );

  app.put(
    '/api/system/user/password/reset',
    {
      schema: { tags: ['用户管理'], summary: '重置用户密码', body: passwordResetSchema },
      config: { module: '用户管理', action: '重置密码', permission: 'sys:user:resetPwd' },
    },
    async (request) => {
      await auth.resetPassword(ctx, request.body);
      return ok(null, '重置成功');
    },
  );
}
