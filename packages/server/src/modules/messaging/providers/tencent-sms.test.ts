import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { closedServerUrl, startFakeServer, type FakeRequest } from './fake-http-server.js';
import { createTencentSmsProvider, tc3Sign } from './tencent-sms.js';

/**
 * Tencent Cloud SMS (issue 38). The signature is first proved against the worked example of Tencent Cloud's
 * "签名方法 v3" (TC3-HMAC-SHA256) documentation; the fake server then verifies every request with its own
 * implementation of the documented steps (below, written apart from tencent-sms.ts), itself checked on the example.
 */

// The official example (CVM DescribeInstances, ap-guangzhou).
const DOC = {
  secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
  secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
  timestamp: 1551113065,
  payload: String.raw`{"Limit": 1, "Filters": [{"Values": ["\u672a\u547d\u540d"], "Name": "instance-name"}]}`,
  hashedPayload: '35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064',
  hashedCanonicalRequest: '5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031',
  signature: '72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
};

/** The verifier: the documented steps, one by one, over what the server received. */
function expectedTc3(secretKey: string, method: string, host: string, contentType: string, ts: string, body: string) {
  const sha = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');
  const mac = (key: crypto.BinaryLike, s: string) => crypto.createHmac('sha256', key).update(s, 'utf8').digest();
  // 1. CanonicalRequest
  const canonicalHeaders = `content-type:${contentType.toLowerCase()}\nhost:${host.toLowerCase()}\n`;
  const canonical = `${method}\n/\n\n${canonicalHeaders}\ncontent-type;host\n${sha(body)}`;
  // 2. StringToSign (the UTC date of the timestamp)
  const date = new Date(Number(ts) * 1000).toISOString().slice(0, 10);
  const scope = `${date}/sms/tc3_request`;
  const stringToSign = `TC3-HMAC-SHA256\n${ts}\n${scope}\n${sha(canonical)}`;
  // 3. Signature
  const kDate = mac('TC3' + secretKey, date);
  const kService = mac(kDate, 'sms');
  const kSigning = mac(kService, 'tc3_request');
  return { scope, signature: crypto.createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex') };
}

const SECRET_ID = 'AKIDtestsecretid';
const SECRET_KEY = 'test-secret-key';

/** The fake SendSms: checks headers, signature and body shape, then answers what the test wants. */
function verify(req: FakeRequest) {
  expect(req.method).toBe('POST');
  expect(req.url).toBe('/');
  expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(req.headers['x-tc-action']).toBe('SendSms');
  expect(req.headers['x-tc-version']).toBe('2021-01-11');
  expect(req.headers['x-tc-region']).toBe('ap-guangzhou');
  const ts = req.headers['x-tc-timestamp'] as string;
  const { scope, signature } = expectedTc3(
    SECRET_KEY,
    req.method,
    req.headers.host!,
    req.headers['content-type'] ?? '',
    ts,
    req.body,
  );
  expect(req.headers.authorization).toBe(
    `TC3-HMAC-SHA256 Credential=${SECRET_ID}/${scope}, SignedHeaders=content-type;host, Signature=${signature}`,
  );
  return JSON.parse(req.body) as Record<string, unknown>;
}

const message = {
  messageId: 42,
  kind: 'visit_before' as const,
  to: '13800138000',
  content: '张*您好，……',
  params: { patient: '张*', study: '心衰研究', window: '2026-03-01 至 2026-03-15', visit: 'V2', link: 'x' },
};

function provider(endpoint: string) {
  return createTencentSmsProvider({
    secretId: SECRET_ID,
    secretKey: SECRET_KEY,
    sdkAppId: '1400000000',
    signName: '某某医院',
    region: 'ap-guangzhou',
    templates: { visit_before: '123456' },
    endpoint,
  });
}

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

describe('Tencent Cloud SMS', () => {
  it('signs the official TC3-HMAC-SHA256 worked example to the documented values', () => {
    const signed = tc3Sign({ ...DOC, service: 'cvm', host: 'cvm.tencentcloudapi.com' });
    expect(signed.canonicalRequest.split('\n').at(-1)).toBe(DOC.hashedPayload);
    expect(signed.stringToSign).toBe(
      `TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n${DOC.hashedCanonicalRequest}`,
    );
    expect(signed.signature).toBe(DOC.signature);
    expect(signed.authorization).toBe(
      `TC3-HMAC-SHA256 Credential=${DOC.secretId}/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, ` +
        `Signature=${DOC.signature}`,
    );
  });

  it("the fake's verifier reproduces the worked example too", () => {
    const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
    expect(sha(DOC.payload)).toBe(DOC.hashedPayload);
    const mac = (key: crypto.BinaryLike, s: string) => crypto.createHmac('sha256', key).update(s).digest();
    const canonical = `POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\ncontent-type;host\n${DOC.hashedPayload}`;
    expect(sha(canonical)).toBe(DOC.hashedCanonicalRequest);
    const key = mac(mac(mac('TC3' + DOC.secretKey, '2019-02-25'), 'cvm'), 'tc3_request');
    const sts = `TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n${DOC.hashedCanonicalRequest}`;
    expect(crypto.createHmac('sha256', key).update(sts).digest('hex')).toBe(DOC.signature);
  });

  it('sends SendSms with the template parameters in order and answers ok with the SerialNo', async () => {
    const fake = await startFakeServer((req) => {
      const body = verify(req);
      expect(body).toEqual({
        PhoneNumberSet: ['+8613800138000'],
        SmsSdkAppId: '1400000000',
        SignName: '某某医院',
        TemplateId: '123456',
        TemplateParamSet: ['张*', '心衰研究', '2026-03-01 至 2026-03-15', 'V2'],
        SessionContext: '42',
      });
      return {
        json: {
          Response: {
            SendStatusSet: [
              {
                SerialNo: '2640:1234',
                PhoneNumber: '+8613800138000',
                Code: 'Ok',
                Message: 'send success',
                SessionContext: '42',
              },
            ],
            RequestId: 'r1',
          },
        },
      };
    });
    close = fake.close;
    const outcome = await provider(fake.url).send(message);
    expect(outcome).toMatchObject({ ok: true, providerMessageId: '2640:1234' });
    expect(fake.requests).toHaveLength(1);
  });

  it('an unapproved template is refused for good', async () => {
    const fake = await startFakeServer((req) => {
      verify(req);
      return {
        json: {
          Response: {
            SendStatusSet: [
              { SerialNo: '', Code: 'FailedOperation.TemplateIncorrectOrUnapproved', Message: 'template not approved' },
            ],
            RequestId: 'r2',
          },
        },
      };
    });
    close = fake.close;
    const outcome = await provider(fake.url).send(message);
    expect(outcome).toMatchObject({ ok: false, retryable: false });
    expect(!outcome.ok && outcome.error).toContain('FailedOperation.TemplateIncorrectOrUnapproved');
  });

  it('an invalid number (Response.Error) is not retried; a rate limit and an internal error are', async () => {
    const codes = ['InvalidParameterValue.IncorrectPhoneNumber', 'RequestLimitExceeded', 'InternalError.Timeout'];
    let i = 0;
    const fake = await startFakeServer((req) => {
      verify(req);
      return { json: { Response: { Error: { Code: codes[i++], Message: 'm' }, RequestId: 'r' } } };
    });
    close = fake.close;
    const p = provider(fake.url);
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: false });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true });
  });

  it('a LimitExceeded status and an HTTP 5xx are retryable', async () => {
    let n = 0;
    const fake = await startFakeServer((req) => {
      verify(req);
      if (n++ === 0) {
        return {
          json: { Response: { SendStatusSet: [{ Code: 'LimitExceeded.PhoneNumberThirtySecondLimit', Message: 'm' }] } },
        };
      }
      return { status: 502, json: { error: 'bad gateway' } };
    });
    close = fake.close;
    const p = provider(fake.url);
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true });
    expect(await p.send(message)).toMatchObject({ ok: false, retryable: true, error: 'HTTP 502' });
  });

  it('a network failure (server closed) is retryable', async () => {
    const outcome = await provider(await closedServerUrl()).send(message);
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(!outcome.ok && outcome.error).toMatch(/^network: /);
  });

  it("the fake's verifier catches a request signed with another key", async () => {
    const fake = await startFakeServer((req) => {
      verify(req);
      return { json: {} };
    });
    const wrong = createTencentSmsProvider({
      secretId: SECRET_ID,
      secretKey: 'another-key',
      sdkAppId: '1400000000',
      signName: '某某医院',
      region: 'ap-guangzhou',
      templates: { visit_before: '123456' },
      endpoint: fake.url,
    });
    expect(await wrong.send(message)).toMatchObject({ ok: false });
    expect(fake.errors).toHaveLength(1);
    fake.errors.length = 0;
    await fake.close();
  });

  it('a kind without a configured template is refused before sending', async () => {
    const outcome = await provider('http://127.0.0.1:1').send({ ...message, kind: 'pro_invite' });
    expect(outcome).toMatchObject({ ok: false, retryable: false });
  });
});
