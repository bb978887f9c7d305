import { DEFAULT_MESSAGE_TEMPLATES, MESSAGE_KINDS, MESSAGE_VARIABLES } from '@ecrf/core';
import { describe, expect, it } from 'vitest';
import { devMessageProvider } from './dev-provider.js';
import { SMS_PARAM_ORDER, messageProvidersFromEnv } from './provider-config.js';

const TENCENT = {
  SMS_PROVIDER: 'tencent',
  TENCENT_SMS_SECRET_ID: 'id',
  TENCENT_SMS_SECRET_KEY: 'key',
  TENCENT_SMS_SDK_APP_ID: '1400000000',
  TENCENT_SMS_SIGN_NAME: '某某医院',
  TENCENT_SMS_TEMPLATES: 'visit_before=1,visit_first_day=2',
};

describe('message providers from the environment', () => {
  it('defaults to the dev provider, which sends nothing and answers dev-<id>', async () => {
    const providers = messageProvidersFromEnv({});
    expect(providers.sms).toBe(devMessageProvider);
    expect(providers.wechat).toBeNull();
    expect(providers.identity).toBeNull();
    const outcome = await providers.sms.send({
      messageId: 5,
      kind: 'visit_before',
      to: '13800138000',
      content: 'x',
      params: {},
    });
    expect(outcome).toMatchObject({ ok: true, providerMessageId: 'dev-5' });
  });

  it('builds tencent, aliyun and wechat from their variables', () => {
    expect(messageProvidersFromEnv(TENCENT).sms.name).toBe('tencent');
    const both = messageProvidersFromEnv({
      SMS_PROVIDER: 'aliyun',
      ALIYUN_SMS_ACCESS_KEY_ID: 'id',
      ALIYUN_SMS_ACCESS_KEY_SECRET: 's',
      ALIYUN_SMS_SIGN_NAME: '某某医院',
      ALIYUN_SMS_TEMPLATES: 'pro_invite=SMS_1',
      WECHAT_APP_ID: 'wx1',
      WECHAT_APP_SECRET: 's',
      WECHAT_TEMPLATES: 'pro_invite=T1',
    });
    expect(both.sms.name).toBe('aliyun');
    expect(both.wechat?.name).toBe('wechat');
    expect(both.wechat?.channel).toBe('wechat');
    expect(both.identity?.name).toBe('wechat');
  });

  it('a chosen provider with a missing setting fails at start naming the variable', () => {
    for (const name of Object.keys(TENCENT).filter((k) => k !== 'SMS_PROVIDER')) {
      expect(() => messageProvidersFromEnv({ ...TENCENT, [name]: '' })).toThrow(name);
    }
    expect(() => messageProvidersFromEnv({ SMS_PROVIDER: 'aliyun' })).toThrow('ALIYUN_SMS_ACCESS_KEY_ID');
    expect(() => messageProvidersFromEnv({ WECHAT_APP_ID: 'wx1' })).toThrow('WECHAT_APP_SECRET');
    expect(() => messageProvidersFromEnv({ WECHAT_APP_ID: 'wx1', WECHAT_APP_SECRET: 's' })).toThrow('WECHAT_TEMPLATES');
    expect(() => messageProvidersFromEnv({ SMS_PROVIDER: 'twilio' })).toThrow('SMS_PROVIDER');
    expect(() => messageProvidersFromEnv({ ...TENCENT, TENCENT_SMS_TEMPLATES: 'visit_later=1' })).toThrow(
      'TENCENT_SMS_TEMPLATES',
    );
  });

  it('SMS_PARAM_ORDER is each default template’s variables in the order they appear', () => {
    for (const kind of MESSAGE_KINDS) {
      const used = [...DEFAULT_MESSAGE_TEMPLATES[kind].matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(SMS_PARAM_ORDER[kind]).toEqual(used);
      for (const name of used) expect(Object.keys(MESSAGE_VARIABLES)).toContain(name);
    }
  });
});
