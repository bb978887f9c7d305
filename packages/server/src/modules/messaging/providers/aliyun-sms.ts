import crypto from 'node:crypto';
import type { MessageKind } from '@ecrf/core';
import type { MessageProvider, OutgoingMessage, SendOutcome } from './provider.js';
import { SMS_PARAM_ORDER, fetchOrFailure, notConfigured, orderedParams, readBody } from './provider-shared.js';

/**
 * Alibaba Cloud SMS (阿里云短信服务) SendSms, dysmsapi 2017-05-25, signed with the RPC signature v1 (HMAC-SHA1 over
 * the percent-encoded, sorted parameters; https://help.aliyun.com/document_detail/101343.html "签名机制"). The
 * parameters travel as an application/x-www-form-urlencoded POST body, so the string to sign starts with POST.
 */
export interface AliyunSmsConfig {
  accessKeyId: string;
  accessKeySecret: string;
  /** 签名名称. */
  signName: string;
  /** 模板CODE (SMS_123456789) per kind. */
  templates: Partial<Record<MessageKind, string>>;
  /** https://dysmsapi.aliyuncs.com; tests point it at a fake. */
  endpoint: string;
  ratePerSecond?: number;
  /** Tests fix the clock and the nonce. */
  now?: () => Date;
  nonce?: () => string;
}

export const ALIYUN_SMS_VERSION = '2017-05-25';

/** POP percent-encoding: RFC 3986 unreserved characters stay, everything else is %XX in upper case (space is %20). */
export function popEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The RPC v1 signature: Base64(HMAC-SHA1(secret + '&', method & %2F & encode(sorted encoded query))). */
export function aliyunRpcSign(method: string, params: Record<string, string>, accessKeySecret: string) {
  const canonicalized = Object.keys(params)
    .filter((key) => key !== 'Signature')
    .sort()
    .map((key) => `${popEncode(key)}=${popEncode(params[key]!)}`)
    .join('&');
  const stringToSign = `${method}&${popEncode('/')}&${popEncode(canonicalized)}`;
  const signature = crypto.createHmac('sha1', `${accessKeySecret}&`).update(stringToSign, 'utf8').digest('base64');
  return { canonicalized, stringToSign, signature };
}

const RETRYABLE_CODES = new Set(['isv.BUSINESS_LIMIT_CONTROL', 'InternalError', 'ServiceUnavailable']);
const retryable = (code: string) => RETRYABLE_CODES.has(code) || code.startsWith('Throttling');

export function createAliyunSmsProvider(config: AliyunSmsConfig): MessageProvider {
  const now = config.now ?? (() => new Date());
  const nonce = config.nonce ?? (() => crypto.randomUUID());
  return {
    name: 'aliyun',
    channel: 'sms',
    ratePerSecond: config.ratePerSecond ?? 20,
    async send(message: OutgoingMessage): Promise<SendOutcome> {
      const templateCode = config.templates[message.kind];
      if (!templateCode) {
        return notConfigured(`no Alibaba Cloud SMS template for ${message.kind} (ALIYUN_SMS_TEMPLATES)`);
      }
      const ordered = orderedParams(message.kind, message.params);
      if ('missing' in ordered) return notConfigured(`template parameter ${ordered.missing} missing`);
      // The approved template's ${patient}, ${study}, …: the kind's variables by name, in SMS_PARAM_ORDER.
      const templateParam = Object.fromEntries(
        SMS_PARAM_ORDER[message.kind].map((name, i) => [name, ordered.values[i]]),
      );
      const params: Record<string, string> = {
        AccessKeyId: config.accessKeyId,
        Action: 'SendSms',
        Format: 'JSON',
        RegionId: 'cn-hangzhou',
        SignatureMethod: 'HMAC-SHA1',
        SignatureNonce: nonce(),
        SignatureVersion: '1.0',
        Timestamp: now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
        Version: ALIYUN_SMS_VERSION,
        PhoneNumbers: message.to.replace(/^\+/, ''),
        SignName: config.signName,
        TemplateCode: templateCode,
        TemplateParam: JSON.stringify(templateParam),
        OutId: String(message.messageId),
      };
      const { canonicalized, signature } = aliyunRpcSign('POST', params, config.accessKeySecret);
      const result = await fetchOrFailure(config.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8', Accept: 'application/json' },
        body: `Signature=${popEncode(signature)}&${canonicalized}`,
      });
      if ('failure' in result) return result.failure;
      const { response } = result;
      const answer = await readBody(response);
      const body = (typeof answer === 'object' && answer ? answer : {}) as {
        Code?: string;
        Message?: string;
        BizId?: string;
      };
      if (response.status >= 500) {
        return { ok: false, retryable: true, error: `HTTP ${response.status}: ${body.Code ?? ''}`, answer };
      }
      if (body.Code === 'OK') return { ok: true, providerMessageId: body.BizId ?? null, answer };
      const code = body.Code ?? `HTTP ${response.status}`;
      return { ok: false, retryable: retryable(code), error: `${code}: ${body.Message ?? ''}`, answer };
    },
  };
}
