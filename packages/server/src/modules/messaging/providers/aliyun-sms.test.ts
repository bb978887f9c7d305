import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { aliyunRpcSign, createAliyunSmsProvider } from './aliyun-sms.js';
import { closedServerUrl, startFakeServer, type FakeRequest } from './fake-http-server.js';

/**
 * Alibaba Cloud SMS (issue 38), RPC signature v1 (HMAC-SHA1). The signing is first proved against the documented
 * examples (the SMS "签名机制" SendSms example and the RPC "签名机制" DescribeRegions example); the fake server then
 * verifies each request with its own implementation of the documented steps, written apart from aliyun-sms.ts.
 */

// The SendSms example of Alibaba Cloud's SMS signature documentation (AccessKeySecret testSecret).
const SMS_DOC_PARAMS = {
  AccessKeyId: 'testId',
  Action: 'SendSms',
  Format: 'XML',
  OutId: '123',
  PhoneNumbers: '15300000001',
  RegionId: 'cn-hangzhou',
  SignName: '阿里云短信测试专用',
  SignatureMethod: 'HMAC-SHA1',
  SignatureNonce: '45e25e9b-0a6f-4070-8c85-2956eda1b466',
  SignatureVersion: '1.0',
  TemplateCode: 'SMS_71390007',
  TemplateParam: '{"customer":"test"}',
  Timestamp: '2017-07-12T02:42:19Z',
  Version: '2017-05-25',
};
const SMS_DOC_STRING_TO_SIGN =
  'GET&%2F&AccessKeyId%3DtestId%26Action%3DSendSms%26Format%3DXML%26OutId%3D123%26PhoneNumbers%3D15300000001' +
  '%26RegionId%3Dcn-hangzhou%26SignName%3D%25E9%2598%25BF%25E9%2587%258C%25E4%25BA%2591%25E7%259F%25AD%25E4%25BF' +
  '%25A1%25E6%25B5%258B%25E8%25AF%2595%25E4%25B8%2593%25E7%2594%25A8%26SignatureMethod%3DHMAC-SHA1' +
  '%26SignatureNonce%3D45e25e9b-0a6f-4070-8c85-2956eda1b466%26SignatureVersion%3D1.0%26TemplateCode%3DSMS_71390007' +
  '%26TemplateParam%3D%257B%2522customer%2522%253A%2522test%2522%257D%26Timestamp%3D2017-07-12T02%253A42%253A19Z' +
  '%26Version%3D2017-05-25';
const SMS_DOC_SIGNATURE = 'zJDF+Lrzhj/ThnlvIToysFRq6t4=';

/** The verifier: the documented steps over the parameters the server received (URLSearchParams decodes them). */
function expectedSignature(method: string, params: URLSearchParams, secret: string) {
  // RFC 3986 percent-encoding with upper-case hex; only A-Z a-z 0-9 - _ . ~ stay as they are.
  const enc = (s: string) =>
    Array.from(Buffer.from(s, 'utf8'))
      .map((b) =>
        /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b))
          ? String.fromCharCode(b)
          : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
      )
      .join('');
  const pairs = [...params.entries()].filter(([k]) => k !== 'Signature');
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const canonical = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  const stringToSign = `${method}&${enc('/')}&${enc(canonical)}`;
  return crypto.createHmac('sha1', `${secret}&`).update(stringToSign, 'utf8').digest('base64');
}

const KEY_ID = 'LTAItestkeyid';
const SECRET = 'test-secret';

function verify(req: FakeRequest) {
  expect(req.method).toBe('POST');
  expect(req.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  const params = new URLSearchParams(req.body);
  expect(params.get('SignatureMethod')).toBe('HMAC-SHA1');
  expect(params.get('SignatureVersion')).toBe('1.0');
  expect(params.get('Timestamp')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(params.get('SignatureNonce')).toBeTruthy();
  expect(params.get('AccessKeyId')).toBe(KEY_ID);
  expect(params.get('Action')).toBe('SendSms');
  expect(params.get('Version')).toBe('2017-05-25');
  expect(params.get('Signature')).toBe(expectedSignature('POST', params, SECRET));
  return params;
}

const message = {
  messageId: 77,
  kind: 'pro_invite' as const,
  to: '13800138000',
  content: '张*您好，请填写……',
  params: { patient: '张*', study: '心衰研究', form: 'KCCQ', link: 'https://edc.example/p/abc', visit: 'V1' },
};

function provider(endpoint: string) {
  return createAliyunSmsProvider({
    accessKeyId: KEY_ID,
    accessKeySecret: SECRET,
    signName: '某某医院',
    templates: { pro_invite: 'SMS_123456789' },
    endpoint,
  });
}

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

describe('Alibaba Cloud SMS', () => {
  it('signs the documented SendSms example to zJDF+Lrzhj/ThnlvIToysFRq6t4=', () => {
    const signed = aliyunRpcSign('GET', SMS_DOC_PARAMS, 'testSecret');
    expect(signed.stringToSign).toBe(SMS_DOC_STRING_TO_SIGN);
    expect(signed.signature).toBe(SMS_DOC_SIGNATURE);
    expect(expectedSignature('GET', new URLSearchParams(SMS_DOC_PARAMS), 'testSecret')).toBe(SMS_DOC_SIGNATURE);
  });

  it('signs the documented RPC DescribeRegions example to OLeaidS1JvxuMvnyHOwuJ+uX5qY=', () => {
    const params = {
      Format: 'XML',
      AccessKeyId: 'testid',
      Action: 'DescribeRegions',
      SignatureMethod: 'HMAC-SHA1',
      SignatureNonce: '3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf',
      SignatureVersion: '1.0',
      Version: '2014-05-26',
      Timestamp: '2016-02-23T12:46:24Z',
    };
    expect(aliyunRpcSign('GET', params, 'testsecret').signature).toBe('OLeaidS1JvxuMvnyHOwuJ+uX5qY=');
    expect(expectedSignature('GET', new URLSearchParams(params), 'testsecret')).toBe('OLeaidS1JvxuMvnyHOwuJ+uX5qY=');
  });

  it('sends SendSms with the kind parameters as JSON and answers ok with the BizId', async () => {
    const fake = await startFakeServer((req) => {
      const params = verify(req);
      expect(params.get('PhoneNumbers')).toBe('13800138000');
      expect(params.get('SignName')).toBe('某某医院');
      expect(params.get('TemplateCode')).toBe('SMS_123456789');
      expect(params.get('OutId')).toBe('77');
      expect(JSON.parse(params.get('TemplateParam')!)).toEqual({
        patient: '张*',
        study: '心衰研究',
        form: 'KCCQ',
        link: 'https://edc.example/p/abc',
      });
      return { json: { Message: 'OK', RequestId: 'r1', BizId: '900619746936498440^0', Code: 'OK' } };
    });
    close = fake.close;
    expect(await provider(fake.url).send(message)).toMatchObject({
      ok: true,
      providerMessageId: '900619746936498440^0',
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('an invalid number or unapproved template is not retried; flow control and throttling are', async () => {
    const codes = [
      'isv.MOBILE_NUMBER_ILLEGAL',
      'isv.SMS_TEMPLATE_ILLEGAL',
      'isv.BUSINESS_LIMIT_CONTROL',
      'Throttling.User',
    ];
    let i = 0;
    const fake = await startFakeServer((req) => {
      verify(req);
      return { json: { Code: codes[i++], Message: 'm', RequestId: 'r' } };
    });
    close = fake.close;
    const p = provider(fake.url);
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: false, error: 'isv.MOBILE_NUMBER_ILLEGAL: m' });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: false });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true });
  });

  it('an HTTP 5xx is retryable', async () => {
    const fake = await startFakeServer((req) => {
      verify(req);
      return { status: 503, json: { Code: 'ServiceUnavailable', Message: 'm' } };
    });
    close = fake.close;
    expect(await provider(fake.url).send(message)).toMatchObject({ ok: false, retryable: true });
  });

  it('a network failure (server closed) is retryable', async () => {
    const outcome = await provider(await closedServerUrl()).send(message);
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(!outcome.ok && outcome.error).toMatch(/^network: /);
  });

  it("the fake's verifier catches a request signed with another secret", async () => {
    const fake = await startFakeServer((req) => {
      verify(req);
      return { json: { Code: 'OK' } };
    });
    const wrong = createAliyunSmsProvider({
      accessKeyId: KEY_ID,
      accessKeySecret: 'another',
      signName: '某某医院',
      templates: { pro_invite: 'SMS_1' },
      endpoint: fake.url,
    });
    expect(await wrong.send(message)).toMatchObject({ ok: false });
    expect(fake.errors).toHaveLength(1);
    fake.errors.length = 0;
    await fake.close();
  });
});
