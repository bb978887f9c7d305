import type { MessageKind } from '@ecrf/core';
import type { PatientIdentityProvider } from '../../patient-portal/patient-identity.js';
import type { MessageProvider, OutgoingMessage, SendOutcome } from './provider.js';
import { SMS_PARAM_ORDER, fetchOrFailure, isKind, notConfigured, readBody } from './provider-shared.js';

/**
 * The WeChat official account (微信公众号, a 服务号): template messages (模板消息) to a bound patient's openId, and
 * the web OAuth (网页授权, snsapi_base) that names the openId of whoever opens the binding page. Documented HTTP APIs:
 * https://developers.weixin.qq.com/doc/offiaccount/ (获取 Access token, 模板消息接口, 网页授权).
 */
export interface WechatTemplate {
  templateId: string;
  /** The template's field (thing1, time2, keyword1 …) → our variable (MESSAGE_VARIABLES, or `content`). */
  fields: Record<string, string>;
}

export interface WechatConfig {
  appId: string;
  appSecret: string;
  templates: Partial<Record<MessageKind, WechatTemplate>>;
  /** https://api.weixin.qq.com; tests point it at a fake. */
  apiBase: string;
  ratePerSecond?: number;
  /** Milliseconds; tests move the clock. */
  now?: () => number;
}

/** The token is refreshed this long before WeChat says it expires. */
export const TOKEN_MARGIN_SECONDS = 300;
/** 40001 invalid credential, 40014 invalid access_token, 42001 access_token expired: fetch a new token once. */
const TOKEN_ERRORS = new Set([40001, 40014, 42001]);
/** -1 system busy, 45009 daily api limit, 45011 api minute-quota: another attempt later may pass. */
const RETRYABLE_ERRORS = new Set([-1, 45009, 45011]);

/**
 * `WECHAT_TEMPLATES`: `<kind>=<template id>[:<field>=<variable>,…]` separated by `;`. Without a field list the
 * kind's SMS_PARAM_ORDER variables fill keyword1, keyword2, … (the link goes in the message's url, not a field).
 */
export function parseWechatTemplates(name: string, value: string): Partial<Record<MessageKind, WechatTemplate>> {
  const map: Partial<Record<MessageKind, WechatTemplate>> = {};
  for (const entry of value.split(';')) {
    const item = entry.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    const kind = eq > 0 ? item.slice(0, eq).trim() : '';
    const rest = eq > 0 ? item.slice(eq + 1) : '';
    const colon = rest.indexOf(':');
    const templateId = (colon >= 0 ? rest.slice(0, colon) : rest).trim();
    if (!isKind(kind) || !templateId) {
      throw new Error(`${name}: "${item}" is not <kind>=<template id>[:<field>=<variable>,…]`);
    }
    const fields: Record<string, string> = {};
    if (colon >= 0) {
      for (const pair of rest.slice(colon + 1).split(',')) {
        const [field, variable] = pair.split('=').map((s) => s.trim());
        if (!field || !variable) throw new Error(`${name}: "${pair}" in ${kind} is not <field>=<variable>`);
        fields[field] = variable;
      }
    } else {
      SMS_PARAM_ORDER[kind]
        .filter((variable) => variable !== 'link')
        .forEach((variable, i) => (fields[`keyword${i + 1}`] = variable));
    }
    map[kind] = { templateId, fields };
  }
  return map;
}

interface WechatAnswer {
  errcode?: number;
  errmsg?: string;
  msgid?: number | string;
  access_token?: string;
  expires_in?: number;
  openid?: string;
}

const asAnswer = (answer: unknown) => (typeof answer === 'object' && answer ? answer : {}) as WechatAnswer;

export function createWechatProvider(config: WechatConfig): MessageProvider & { clearToken(): void } {
  const now = config.now ?? (() => Date.now());
  let token: { value: string; until: number } | null = null;

  /** The cached token, or a new one; a refusal or network failure comes back as the send's outcome. */
  type TokenResult = { token: string } | { failure: SendOutcome };
  /** One token request at a time: a new token invalidates the old one, so concurrent sends share the request. */
  let inFlight: Promise<TokenResult> | null = null;

  function accessToken(fresh: boolean): Promise<TokenResult> {
    if (!fresh && token && now() < token.until) return Promise.resolve({ token: token.value });
    inFlight ??= requestToken().finally(() => (inFlight = null));
    return inFlight;
  }

  async function requestToken(): Promise<TokenResult> {
    const query = new URLSearchParams({
      grant_type: 'client_credential',
      appid: config.appId,
      secret: config.appSecret,
    });
    const result = await fetchOrFailure(`${config.apiBase}/cgi-bin/token?${query.toString()}`, { method: 'GET' });
    if ('failure' in result) return result;
    const answer = await readBody(result.response);
    const body = asAnswer(answer);
    if (result.response.status >= 500) {
      return { failure: { ok: false, retryable: true, error: `access_token: HTTP ${result.response.status}`, answer } };
    }
    if (!body.access_token) {
      const code = body.errcode ?? result.response.status;
      const error = `access_token ${code}: ${body.errmsg ?? ''}`;
      return { failure: { ok: false, retryable: RETRYABLE_ERRORS.has(Number(code)), error, answer } };
    }
    const seconds = Math.max(0, (body.expires_in ?? 7200) - TOKEN_MARGIN_SECONDS);
    token = { value: body.access_token, until: now() + seconds * 1000 };
    return { token: token.value };
  }

  async function post(accessTokenValue: string, payload: string) {
    const url = `${config.apiBase}/cgi-bin/message/template/send?access_token=${encodeURIComponent(accessTokenValue)}`;
    return fetchOrFailure(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: payload });
  }

  return {
    name: 'wechat',
    channel: 'wechat',
    ratePerSecond: config.ratePerSecond ?? 20,
    clearToken: () => (token = null),
    async send(message: OutgoingMessage): Promise<SendOutcome> {
      const template = config.templates[message.kind];
      if (!template) return notConfigured(`no WeChat template for ${message.kind} (WECHAT_TEMPLATES)`);
      const data: Record<string, { value: string }> = {};
      for (const [field, variable] of Object.entries(template.fields)) {
        const value = variable === 'content' ? message.content : message.params[variable];
        if (value === undefined) return notConfigured(`template parameter ${variable} missing`);
        data[field] = { value };
      }
      const payload = JSON.stringify({
        touser: message.to,
        template_id: template.templateId,
        ...(message.params.link ? { url: message.params.link } : {}),
        data,
        client_msg_id: `ecrf-${message.messageId}`,
      });
      for (let attempt = 0; attempt < 2; attempt++) {
        const got = await accessToken(attempt > 0);
        if ('failure' in got) return got.failure;
        const result = await post(got.token, payload);
        if ('failure' in result) return result.failure;
        const answer = await readBody(result.response);
        if (result.response.status >= 500) {
          return { ok: false, retryable: true, error: `HTTP ${result.response.status}`, answer };
        }
        const body = asAnswer(answer);
        const code = Number(body.errcode ?? -2);
        if (code === 0) return { ok: true, providerMessageId: body.msgid == null ? null : String(body.msgid), answer };
        if (TOKEN_ERRORS.has(code) && attempt === 0) {
          token = null;
          continue;
        }
        return { ok: false, retryable: RETRYABLE_ERRORS.has(code), error: `${code}: ${body.errmsg ?? ''}`, answer };
      }
      // Unreachable: the second attempt always returns.
      return { ok: false, retryable: true, error: 'access_token refused twice', answer: null };
    },
  };
}

/**
 * The web OAuth (网页授权, snsapi_base) as a PatientIdentityProvider: the binding page's `code` is exchanged for the
 * openId of the WeChat user who opened it. A refusal (40029 invalid code, 40163 code been used …) is a thrown Error.
 */
export function wechatIdentityProvider(
  config: Pick<WechatConfig, 'appId' | 'appSecret' | 'apiBase'>,
): PatientIdentityProvider {
  return {
    name: 'wechat',
    async identify({ appId, authCode }) {
      if (!authCode) {
        throw new Error('WeChat OAuth: no code (the binding page must be opened through the OAuth redirect)');
      }
      if (appId && appId !== config.appId) {
        throw new Error(`WeChat OAuth: the study's official account ${appId} is not the configured WECHAT_APP_ID`);
      }
      const query = new URLSearchParams({
        appid: config.appId,
        secret: config.appSecret,
        code: authCode,
        grant_type: 'authorization_code',
      });
      let response: Response;
      try {
        response = await fetch(`${config.apiBase}/sns/oauth2/access_token?${query.toString()}`, {
          signal: AbortSignal.timeout(10_000),
        });
      } catch (err) {
        throw new Error(`WeChat OAuth: network error (${err instanceof Error ? err.message : String(err)})`, {
          cause: err,
        });
      }
      const body = asAnswer(await readBody(response));
      if (!response.ok || !body.openid) {
        throw new Error(
          `WeChat OAuth refused the code: ${body.errcode ?? response.status} ${body.errmsg ?? ''}`.trim(),
        );
      }
      return body.openid;
    },
  };
}
