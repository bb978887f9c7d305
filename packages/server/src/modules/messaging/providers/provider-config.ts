import type { PatientIdentityProvider } from '../../patient-portal/patient-identity.js';
import { createAliyunSmsProvider } from './aliyun-sms.js';
import { devMessageProvider } from './dev-provider.js';
import type { MessageProvider } from './provider.js';
import { parseKindMap } from './provider-shared.js';
import { createTencentSmsProvider } from './tencent-sms.js';
import { createWechatProvider, parseWechatTemplates, wechatIdentityProvider } from './wechat-official.js';

export { SMS_PARAM_ORDER } from './provider-shared.js';

export interface MessageProviders {
  sms: MessageProvider;
  /** null: no official account configured (WECHAT_APP_ID unset); the wechat channel cannot send. */
  wechat: MessageProvider | null;
  /** The WeChat web OAuth when an official account is configured; null: the caller keeps devIdentityProvider. */
  identity: PatientIdentityProvider | null;
}

type Env = Record<string, string | undefined>;

/**
 * The providers the environment configures (docs/messaging-providers.md). A chosen provider with a setting missing is
 * an Error at start naming the variable: never a silent fallback to the development outbox.
 */
export function messageProvidersFromEnv(env: Env = process.env): MessageProviders {
  const need = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`${name} is required by the configured message provider but is not set`);
    return value;
  };
  const optional = (name: string, fallback: string) => env[name]?.trim() || fallback;

  const smsProvider = optional('SMS_PROVIDER', 'dev');
  let sms: MessageProvider;
  switch (smsProvider) {
    case 'dev':
      sms = devMessageProvider;
      break;
    case 'tencent':
      sms = createTencentSmsProvider({
        secretId: need('TENCENT_SMS_SECRET_ID'),
        secretKey: need('TENCENT_SMS_SECRET_KEY'),
        sdkAppId: need('TENCENT_SMS_SDK_APP_ID'),
        signName: need('TENCENT_SMS_SIGN_NAME'),
        region: optional('TENCENT_SMS_REGION', 'ap-guangzhou'),
        templates: parseKindMap('TENCENT_SMS_TEMPLATES', need('TENCENT_SMS_TEMPLATES')),
        endpoint: optional('TENCENT_SMS_ENDPOINT', 'https://sms.tencentcloudapi.com'),
      });
      break;
    case 'aliyun':
      sms = createAliyunSmsProvider({
        accessKeyId: need('ALIYUN_SMS_ACCESS_KEY_ID'),
        accessKeySecret: need('ALIYUN_SMS_ACCESS_KEY_SECRET'),
        signName: need('ALIYUN_SMS_SIGN_NAME'),
        templates: parseKindMap('ALIYUN_SMS_TEMPLATES', need('ALIYUN_SMS_TEMPLATES')),
        endpoint: optional('ALIYUN_SMS_ENDPOINT', 'https://dysmsapi.aliyuncs.com'),
      });
      break;
    default:
      throw new Error(`SMS_PROVIDER must be dev, tencent or aliyun, not "${smsProvider}"`);
  }

  if (!env.WECHAT_APP_ID?.trim()) return { sms, wechat: null, identity: null };
  const wechatConfig = {
    appId: need('WECHAT_APP_ID'),
    appSecret: need('WECHAT_APP_SECRET'),
    apiBase: optional('WECHAT_API_BASE', 'https://api.weixin.qq.com').replace(/\/+$/, ''),
  };
  return {
    sms,
    wechat: createWechatProvider({
      ...wechatConfig,
      templates: parseWechatTemplates('WECHAT_TEMPLATES', need('WECHAT_TEMPLATES')),
    }),
    identity: wechatIdentityProvider(wechatConfig),
  };
}
