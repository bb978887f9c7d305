import crypto from 'node:crypto';
import type { MessageKind } from '@ecrf/core';
import type { MessageProvider, OutgoingMessage, SendOutcome } from './provider.js';
import { fetchOrFailure, notConfigured, orderedParams, readBody } from './provider-shared.js';

/**
 * Tencent Cloud SMS (腾讯云短信) SendSms, API 3.0 version 2021-01-11, signed with TC3-HMAC-SHA256 as "签名方法 v3"
 * documents it (https://cloud.tencent.com/document/api/382/52072 for the signature, /382/55981 for SendSms).
 */
export interface TencentSmsConfig {
  secretId: string;
  secretKey: string;
  /** 短信 SdkAppId (SDK AppID in the console's 应用管理). */
  sdkAppId: string;
  /** 签名内容, the approved signature's text (without 【】). */
  signName: string;
  region: string;
  /** 模板ID per kind. */
  templates: Partial<Record<MessageKind, string>>;
  /** https://sms.tencentcloudapi.com; tests point it at a fake. */
  endpoint: string;
  ratePerSecond?: number;
  /** Seconds since the epoch; tests fix it. */
  now?: () => number;
}

export const TENCENT_SMS_VERSION = '2021-01-11';
const SERVICE = 'sms';
const CONTENT_TYPE = 'application/json; charset=utf-8';

const sha256Hex = (data: string) => crypto.createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: crypto.BinaryLike, data: string) => crypto.createHmac('sha256', key).update(data, 'utf8').digest();

export interface Tc3Input {
  secretId: string;
  secretKey: string;
  service: string;
  /** The Host header as sent (lower case, with the port if any). */
  host: string;
  /** Seconds since the epoch: X-TC-Timestamp. */
  timestamp: number;
  payload: string;
}

/** The TC3-HMAC-SHA256 steps 1-4 for a POST with a JSON body (content-type and host signed). */
export function tc3Sign(input: Tc3Input) {
  const signedHeaders = 'content-type;host';
  const canonicalRequest = [
    'POST',
    '/',
    '',
    `content-type:${CONTENT_TYPE}\nhost:${input.host.toLowerCase()}\n`,
    signedHeaders,
    sha256Hex(input.payload),
  ].join('\n');
  const date = new Date(input.timestamp * 1000).toISOString().slice(0, 10);
  const credentialScope = `${date}/${input.service}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(input.timestamp), credentialScope, sha256Hex(canonicalRequest)].join(
    '\n',
  );
  const secretDate = hmac(`TC3${input.secretKey}`, date);
  const secretService = hmac(secretDate, input.service);
  const secretSigning = hmac(secretService, 'tc3_request');
  const signature = crypto.createHmac('sha256', secretSigning).update(stringToSign, 'utf8').digest('hex');
  const authorization =
    `TC3-HMAC-SHA256 Credential=${input.secretId}/${credentialScope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, signature, authorization };
}

/** 11 digits are a mainland number (+86); anything else is E.164 without its '+'. */
export function e164(to: string): string {
  const digits = to.replace(/^\+/, '');
  return /^1\d{10}$/.test(digits) ? `+86${digits}` : `+${digits}`;
}

const RETRYABLE = /^(LimitExceeded|InternalError|RequestLimitExceeded)/;

interface TencentAnswer {
  Response?: {
    Error?: { Code?: string; Message?: string };
    SendStatusSet?: { Code?: string; Message?: string; SerialNo?: string }[];
  };
}

export function createTencentSmsProvider(config: TencentSmsConfig): MessageProvider {
  const host = new URL(config.endpoint).host;
  const now = config.now ?? (() => Math.floor(Date.now() / 1000));
  return {
    name: 'tencent',
    channel: 'sms',
    ratePerSecond: config.ratePerSecond ?? 20,
    async send(message: OutgoingMessage): Promise<SendOutcome> {
      const templateId = config.templates[message.kind];
      if (!templateId) return notConfigured(`no Tencent SMS template for ${message.kind} (TENCENT_SMS_TEMPLATES)`);
      const ordered = orderedParams(message.kind, message.params);
      if ('missing' in ordered) return notConfigured(`template parameter ${ordered.missing} missing`);
      const payload = JSON.stringify({
        PhoneNumberSet: [e164(message.to)],
        SmsSdkAppId: config.sdkAppId,
        SignName: config.signName,
        TemplateId: templateId,
        TemplateParamSet: ordered.values,
        SessionContext: String(message.messageId),
      });
      const timestamp = now();
      const { authorization } = tc3Sign({ ...config, service: SERVICE, host, timestamp, payload });
      const result = await fetchOrFailure(config.endpoint, {
        method: 'POST',
        headers: {
          Authorization: authorization,
          'Content-Type': CONTENT_TYPE,
          'X-TC-Action': 'SendSms',
          'X-TC-Timestamp': String(timestamp),
          'X-TC-Version': TENCENT_SMS_VERSION,
          'X-TC-Region': config.region,
        },
        body: payload,
      });
      if ('failure' in result) return result.failure;
      const { response } = result;
      const answer = await readBody(response);
      if (response.status >= 500) return { ok: false, retryable: true, error: `HTTP ${response.status}`, answer };
      const body = (typeof answer === 'object' && answer ? answer : {}) as TencentAnswer;
      const error = body.Response?.Error;
      if (error) {
        const code = error.Code ?? 'Error';
        return { ok: false, retryable: RETRYABLE.test(code), error: `${code}: ${error.Message ?? ''}`, answer };
      }
      const status = body.Response?.SendStatusSet?.[0];
      if (!status) {
        return {
          ok: false,
          retryable: response.status >= 500,
          error: `HTTP ${response.status}: no SendStatusSet`,
          answer,
        };
      }
      if (status.Code === 'Ok') return { ok: true, providerMessageId: status.SerialNo ?? null, answer };
      const code = status.Code ?? 'Unknown';
      return { ok: false, retryable: RETRYABLE.test(code), error: `${code}: ${status.Message ?? ''}`, answer };
    },
  };
}
