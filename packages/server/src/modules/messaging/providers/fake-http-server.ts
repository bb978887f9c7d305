import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake provider received it. */
export interface FakeRequest {
  method: string;
  /** Path with query. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeAnswer {
  status?: number;
  json: unknown;
}

/**
 * A local stand-in for a provider's HTTP API (tests only): node:http on 127.0.0.1, port 0. `answer` sees each request
 * (and may check its shape and signature); `requests` keeps them for the test's assertions.
 */
export async function startFakeServer(answer: (req: FakeRequest) => FakeAnswer) {
  const requests: FakeRequest[] = [];
  /** What `answer` threw (a request of the wrong shape or signature): `close` then rejects, failing the test. */
  const errors: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const got: FakeRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(got);
      let reply: FakeAnswer;
      try {
        reply = answer(got);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        errors.push(error);
        reply = { status: 400, json: { fakeError: error } };
      }
      res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    errors,
    /** Stops the server; rejects when a request failed the fake's checks (unless the test took the errors). */
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (errors.length) throw new Error(`the fake provider refused a request: ${errors.join('; ')}`);
    },
  };
}

/** An address where nothing listens any more: a server that was started and closed. */
export async function closedServerUrl(): Promise<string> {
  const fake = await startFakeServer(() => ({ json: {} }));
  await fake.close();
  return fake.url;
}
