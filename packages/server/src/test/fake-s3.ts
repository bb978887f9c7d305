import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { S3Config } from '../config.js';

/**
 * A small S3-compatible server for tests (docs/object-storage.md says why not a package): path-style
 * PUT, GET, HEAD and DELETE of objects, and the browser form POST with its policy checked as S3 checks it
 * (SigV4 signature of the policy, expiry, exact and starts-with conditions, content-length-range). Header
 * and query signatures of the SDK's own calls are not verified: the tests are about the form post.
 *
 * Browser tests run it as a process of its own (`node --import tsx packages/server/src/test/fake-s3.ts HOST`
 * prints its settings as one JSON line) and steer it through `POST /__fake/hold`, `POST /__fake/release` and
 * `GET /__fake/state`.
 */
export interface FakeS3 {
  readonly url: string;
  readonly config: S3Config;
  readonly objects: Map<string, { body: Buffer; contentType: string }>;
  /** Every form post answered, with its status: what a browser upload did. */
  readonly posts: Array<{ key: string; status: number }>;
  /** Holds the answers to form posts (the bytes are received) until the returned function is called. */
  holdPosts(): () => void;
  close(): Promise<void>;
}

const ACCESS = 'test-access-key';
const SECRET = 'test-secret-key-test-secret-key';
const REGION = 'us-east-1';

const hmac = (key: Buffer | string, data: string) => crypto.createHmac('sha256', key).update(data).digest();

function parseMultipart(body: Buffer, contentType: string) {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const fields = new Map<string, string>();
  let file: Buffer | null = null;
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, split).toString();
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/.exec(headers)?.[1] ?? '';
    if (/filename="/.test(headers)) file = content;
    // Form field names are case-insensitive in S3 (the SDK sends Policy, X-Amz-Signature).
    else fields.set(name.toLowerCase(), content.toString());
    at = next;
  }
  return { fields, file };
}

function checkPolicy(fields: Map<string, string>, file: Buffer, bucket: string): [number, string] | null {
  const policy = fields.get('policy');
  const signature = fields.get('x-amz-signature');
  const credential = fields.get('x-amz-credential');
  if (!policy || !signature || !credential) return [403, 'AccessDenied: missing policy or signature'];
  const [accessKey, date, region, service] = credential.split('/');
  if (accessKey !== ACCESS) return [403, 'InvalidAccessKeyId'];
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${SECRET}`, date ?? ''), region ?? ''), service ?? ''), 'aws4_request');
  if (hmac(signingKey, policy).toString('hex') !== signature) return [403, 'SignatureDoesNotMatch'];
  const doc = JSON.parse(Buffer.from(policy, 'base64').toString()) as {
    expiration: string;
    conditions: Array<Record<string, string> | [string, string | number, string | number]>;
  };
  if (Date.parse(doc.expiration) < Date.now()) {
    return [403, 'AccessDenied: Invalid according to Policy: Policy expired'];
  }
  const covered = new Set(['policy', 'x-amz-signature', 'file']);
  const value = (name: string) => (name.toLowerCase() === 'bucket' ? bucket : fields.get(name.toLowerCase()));
  for (const condition of doc.conditions) {
    if (Array.isArray(condition)) {
      const [op, a, b] = condition;
      if (op === 'content-length-range') {
        if (file.length < Number(a)) return [400, 'EntityTooSmall'];
        if (file.length > Number(b)) return [400, 'EntityTooLarge'];
        continue;
      }
      const name = String(a).replace(/^\$/, '');
      covered.add(name.toLowerCase());
      const given = value(name) ?? '';
      if ((op === 'eq' && given !== b) || (op === 'starts-with' && !given.startsWith(String(b)))) {
        return [403, `AccessDenied: Invalid according to Policy: Policy Condition failed: ${name}`];
      }
    } else {
      for (const [name, expected] of Object.entries(condition)) {
        covered.add(name.toLowerCase());
        if (value(name) !== expected) {
          return [403, `AccessDenied: Invalid according to Policy: Policy Condition failed: ${name}`];
        }
      }
    }
  }
  for (const name of fields.keys()) {
    if (!covered.has(name.toLowerCase()) && !name.toLowerCase().startsWith('x-ignore-')) {
      return [403, `AccessDenied: Invalid according to Policy: Extra input fields: ${name}`];
    }
  }
  return null;
}

export async function startFakeS3(options: { bucket?: string; host?: string } = {}): Promise<FakeS3> {
  const bucket = options.bucket ?? 'edc-test';
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const posts: FakeS3['posts'] = [];
  let held: Promise<void> = Promise.resolve();
  let releaseHeld: (() => void) | null = null;
  const holdPosts = () => {
    let release = () => {};
    held = new Promise<void>((resolve) => (release = resolve));
    releaseHeld = () => {
      release();
      held = Promise.resolve();
      releaseHeld = null;
    };
    return releaseHeld;
  };
  const control = (command: string, res: http.ServerResponse) => {
    if (command === 'hold') holdPosts();
    else if (command === 'release') releaseHeld?.();
    else if (command !== 'state') return void res.writeHead(404).end();
    const state = { objects: [...objects.keys()], posts };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state));
  };
  const server = http.createServer((req, res) => {
    // The browser posts from the app's origin: the store must allow it (a bucket CORS rule in production).
    res.setHeader('access-control-allow-origin', req.headers.origin ?? '*');
    res.setHeader('access-control-allow-methods', 'GET, HEAD, POST, PUT, DELETE');
    res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? '*');
    res.setHeader('access-control-expose-headers', 'ETag');
    const fail = (status: number, code: string) => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`);
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const [, bucketName, ...rest] = url.pathname.split('/');
      const key = rest.map(decodeURIComponent).join('/');
      const body = Buffer.concat(chunks);
      if (req.method === 'OPTIONS') return void res.writeHead(204).end();
      if (url.pathname.startsWith('/__fake/')) return control(url.pathname.slice('/__fake/'.length), res);
      if (bucketName !== bucket) return fail(404, 'NoSuchBucket');
      if (req.method === 'POST' && !key) {
        const form = parseMultipart(body, req.headers['content-type'] ?? '');
        if (!form?.file) return fail(400, 'MalformedPOSTRequest');
        const target = form.fields.get('key') ?? '';
        const refused = checkPolicy(form.fields, form.file, bucket);
        posts.push({ key: target, status: refused ? refused[0] : 204 });
        if (refused) return fail(refused[0], refused[1]);
        const stored = { body: form.file, contentType: form.fields.get('content-type') ?? 'binary/octet-stream' };
        return void held.then(() => {
          objects.set(target, stored);
          res.writeHead(204).end();
        });
      }
      const object = objects.get(key);
      switch (req.method ?? '') {
        case 'PUT':
          objects.set(key, { body, contentType: req.headers['content-type'] ?? 'binary/octet-stream' });
          return void res.writeHead(200, { etag: '"fake"' }).end();
        case 'DELETE':
          objects.delete(key);
          return void res.writeHead(204).end();
        case 'HEAD':
          if (!object) return void res.writeHead(404).end();
          return void res
            .writeHead(200, { 'content-length': object.body.length, 'content-type': object.contentType })
            .end();
        case 'GET': {
          if (!object) return fail(404, 'NoSuchKey');
          const expires = url.searchParams.get('X-Amz-Expires');
          const signedAt = url.searchParams.get('X-Amz-Date');
          if (expires && signedAt) {
            const at = Date.parse(
              signedAt.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
            );
            if (at + Number(expires) * 1000 < Date.now()) return fail(403, 'AccessDenied');
          }
          const headers: Record<string, string | number> = {
            'content-length': object.body.length,
            'content-type': url.searchParams.get('response-content-type') ?? object.contentType,
          };
          const disposition = url.searchParams.get('response-content-disposition');
          if (disposition) headers['content-disposition'] = disposition;
          return void res.writeHead(200, headers).end(object.body);
        }
        default:
          return fail(405, 'MethodNotAllowed');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url,
    config: { endpoint: url, bucket, accessKeyId: ACCESS, secretAccessKey: SECRET, region: REGION },
    objects,
    posts,
    holdPosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fake = await startFakeS3({ host: process.argv[2] ?? '127.0.0.1' });
  console.log(JSON.stringify(fake.config));
  process.once('SIGTERM', () => void fake.close().then(() => process.exit(0)));
}
