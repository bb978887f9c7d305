import crypto from 'node:crypto';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../shared/app-error.js';

const CAPTCHA_TTL_MS = 2 * 60 * 1000;
const key = (uuid: string) => `captcha:${uuid}`;

export async function issueCaptcha(ctx: AppContext) {
  if (!ctx.config.captchaEnabled) return { captchaEnabled: false, uuid: '', img: '' };
  const { default: svgCaptcha } = await import('svg-captcha');
  const captcha = svgCaptcha.create({ size: 4, noise: 2, ignoreChars: '0oO1iIlL', width: 120, height: 40 });
  const uuid = crypto.randomUUID();
  await ctx.kv.set(key(uuid), captcha.text.toLowerCase(), CAPTCHA_TTL_MS);
  const img = `data:image/svg+xml;base64,${Buffer.from(captcha.data).toString('base64')}`;
  return { captchaEnabled: true, uuid, img };
}

/** Each answer can be tried once: a wrong guess burns it, so it can't be brute-forced. */
export async function checkCaptcha(ctx: AppContext, uuid: string | undefined, code: string | undefined) {
  if (!ctx.config.captchaEnabled) return;
  if (!code?.trim()) throw AppError.badRequest('auth.captcha_required', '请输入验证码');
  const answer = uuid ? await ctx.kv.take(key(uuid)) : null;
  if (answer === null) throw AppError.badRequest('auth.captcha_expired', '验证码已失效');
  if (answer !== code.trim().toLowerCase()) throw AppError.badRequest('auth.captcha_wrong', '验证码错误');
}
