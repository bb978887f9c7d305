import { afterEach, describe, expect, it } from 'vitest';
import { closedServerUrl, startFakeServer, type FakeRequest, type FakeAnswer } from './fake-http-server.js';
import { createWechatProvider, parseWechatTemplates, wechatIdentityProvider } from './wechat-official.js';

/**
 * The WeChat official account (issue 38) against a fake api.weixin.qq.com: access_token (cached, refreshed on
 * 40001/42001), template messages (模板消息), and the web OAuth that names a binding page's openId.
 */

const APP_ID = 'wx1234567890abcdef';
const APP_SECRET = 'app-secret';

const message = {
  messageId: 9,
  kind: 'pro_invite' as const,
  to: 'oAbCdEfGhIjKlMnOpQrStUvWxYz0',
  content: '张*您好，请填写心衰研究的问卷《KCCQ》：https://edc.example/p/abc',
  params: { patient: '张*', study: '心衰研究', form: 'KCCQ', link: 'https://edc.example/p/abc' },
};

interface Fake {
  tokens: number;
  /** What the template send answers, in turn. */
  sends: FakeAnswer[];
}

function wechatApi(state: Fake) {
  return (req: FakeRequest): FakeAnswer => {
    const url = new URL(req.url, 'http://fake');
    if (url.pathname === '/cgi-bin/token') {
      expect(req.method).toBe('GET');
      expect(url.searchParams.get('grant_type')).toBe('client_credential');
      expect(url.searchParams.get('appid')).toBe(APP_ID);
      expect(url.searchParams.get('secret')).toBe(APP_SECRET);
      state.tokens++;
      return { json: { access_token: `TOKEN${state.tokens}`, expires_in: 7200 } };
    }
    if (url.pathname === '/cgi-bin/message/template/send') {
      expect(req.method).toBe('POST');
      expect(url.searchParams.get('access_token')).toMatch(/^TOKEN\d+$/);
      expect(req.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(req.body) as Record<string, unknown>;
      expect(body).toEqual({
        touser: message.to,
        template_id: 'TPL_INVITE',
        url: 'https://edc.example/p/abc',
        data: { thing1: { value: 'KCCQ' }, thing2: { value: '心衰研究' } },
        client_msg_id: 'ecrf-9',
      });
      return state.sends.shift() ?? { json: { errcode: 0, errmsg: 'ok', msgid: 200228332 } };
    }
    if (url.pathname === '/sns/oauth2/access_token') {
      expect(url.searchParams.get('appid')).toBe(APP_ID);
      expect(url.searchParams.get('secret')).toBe(APP_SECRET);
      expect(url.searchParams.get('grant_type')).toBe('authorization_code');
      if (url.searchParams.get('code') === 'good-code') {
        return {
          json: { access_token: 'a', expires_in: 7200, refresh_token: 'r', openid: message.to, scope: 'snsapi_base' },
        };
      }
      return { json: { errcode: 40029, errmsg: 'invalid code' } };
    }
    throw new Error(`unexpected ${req.method} ${req.url}`);
  };
}

let clock = 1_800_000_000_000;
function provider(apiBase: string) {
  return createWechatProvider({
    appId: APP_ID,
    appSecret: APP_SECRET,
    apiBase,
    templates: parseWechatTemplates('WECHAT_TEMPLATES', 'pro_invite=TPL_INVITE:thing1=form,thing2=study'),
    now: () => clock,
  });
}

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

describe('WeChat official account', () => {
  it('sends a template message with the configured fields and answers ok with the msgid; the token is cached', async () => {
    const state: Fake = { tokens: 0, sends: [] };
    const fake = await startFakeServer(wechatApi(state));
    close = fake.close;
    const p = provider(fake.url);
    expect(await p.send(message)).toMatchObject({ ok: true, providerMessageId: '200228332' });
    expect(await p.send(message)).toMatchObject({ ok: true });
    expect(state.tokens).toBe(1);
    // Past expires_in minus the margin, a new token is fetched.
    clock += (7200 - 300) * 1000 + 1;
    expect(await p.send(message)).toMatchObject({ ok: true });
    expect(state.tokens).toBe(2);
  });

  it('concurrent sends share one token request', async () => {
    const state: Fake = { tokens: 0, sends: [] };
    const fake = await startFakeServer(wechatApi(state));
    close = fake.close;
    const p = provider(fake.url);
    const outcomes = await Promise.all([p.send(message), p.send(message), p.send(message)]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(state.tokens).toBe(1);
  });

  it('refreshes the token once on 40001 / 42001 and sends again', async () => {
    const state: Fake = { tokens: 0, sends: [{ json: { errcode: 42001, errmsg: 'access_token expired' } }] };
    const fake = await startFakeServer(wechatApi(state));
    close = fake.close;
    const outcome = await provider(fake.url).send(message);
    expect(outcome).toMatchObject({ ok: true });
    expect(state.tokens).toBe(2);
    const sent = fake.requests.filter((r) => r.url.startsWith('/cgi-bin/message/template/send'));
    expect(sent.map((r) => new URL(r.url, 'http://x').searchParams.get('access_token'))).toEqual(['TOKEN1', 'TOKEN2']);

    // Refused twice: only one refresh, then the refusal stands.
    const twice: Fake = {
      tokens: 0,
      sends: [
        { json: { errcode: 40001, errmsg: 'invalid credential' } },
        { json: { errcode: 40001, errmsg: 'invalid credential' } },
      ],
    };
    const fake2 = await startFakeServer(wechatApi(twice));
    expect(await provider(fake2.url).send(message)).toMatchObject({ ok: false, retryable: false });
    expect(twice.tokens).toBe(2);
    await fake2.close();
  });

  it('an unsubscribed user (43004) or a bad openid (40003) is not retried; system busy and rate limits are', async () => {
    const state: Fake = {
      tokens: 0,
      sends: [
        { json: { errcode: 43004, errmsg: 'require subscribe' } },
        { json: { errcode: 40003, errmsg: 'invalid openid' } },
        { json: { errcode: -1, errmsg: 'system error' } },
        { json: { errcode: 45009, errmsg: 'reach max api daily quota limit' } },
        { status: 502, json: {} },
      ],
    };
    const fake = await startFakeServer(wechatApi(state));
    close = fake.close;
    const p = provider(fake.url);
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: false, error: '43004: require subscribe' });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: false });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true });
  });

  it('a network failure (server closed) is retryable', async () => {
    const outcome = await provider(await closedServerUrl()).send(message);
    expect(outcome).toMatchObject({ ok: false, retryable: true });
  });

  it('a refused token (bad secret) is refused for good', async () => {
    const fake = await startFakeServer(() => ({ json: { errcode: 40125, errmsg: 'invalid appsecret' } }));
    close = fake.close;
    expect(await provider(fake.url).send(message)).toMatchObject({ ok: false, retryable: false });
  });

  it('without a field list the kind fills keyword1… in SMS_PARAM_ORDER, the link going in url', () => {
    expect(parseWechatTemplates('W', 'pro_remind=T1')).toEqual({
      pro_remind: { templateId: 'T1', fields: { keyword1: 'patient', keyword2: 'form' } },
    });
    expect(() => parseWechatTemplates('W', 'nope=T1')).toThrow(/W: "nope=T1"/);
  });

  it('the web OAuth exchanges the code for the openid; a refused code is a clear Error', async () => {
    const state: Fake = { tokens: 0, sends: [] };
    const fake = await startFakeServer(wechatApi(state));
    close = fake.close;
    const identity = wechatIdentityProvider({ appId: APP_ID, appSecret: APP_SECRET, apiBase: fake.url });
    expect(identity.name).toBe('wechat');
    expect(await identity.identify({ studyId: 1, appId: APP_ID, authCode: 'good-code' })).toBe(message.to);
    await expect(identity.identify({ studyId: 1, appId: null, authCode: 'used-code' })).rejects.toThrow(
      'WeChat OAuth refused the code: 40029 invalid code',
    );
    await expect(identity.identify({ studyId: 1, appId: null, authCode: null })).rejects.toThrow(/no code/);
    await expect(identity.identify({ studyId: 1, appId: 'wxother', authCode: 'good-code' })).rejects.toThrow(
      /not the configured WECHAT_APP_ID/,
    );
  });
});
