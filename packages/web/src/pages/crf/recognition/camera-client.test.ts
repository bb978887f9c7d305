import { describe, expect, it } from 'vitest';
import { CameraClient, CameraError, cameraBase, DEFAULT_CAMERA_BASE, photoFile, type FetchLike } from './camera-client';

interface Call {
  url: string;
  method: string;
  body: unknown;
}

/** A camera service answering each path with the given body (or failing the call when it is an Error). */
function service(answers: Record<string, unknown>) {
  const calls: Call[] = [];
  const fetchFn: FetchLike = (url, init) => {
    const path = url.replace('http://cam', '');
    calls.push({
      url: path,
      method: init?.method ?? 'GET',
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const answer = answers[path];
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer === undefined) return Promise.resolve(new Response('not found', { status: 404 }));
    return Promise.resolve(new Response(JSON.stringify(answer), { status: 200 }));
  };
  return { client: new CameraClient('http://cam', fetchFn), calls };
}

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error instanceof CameraError ? error.message : 'other';
  }
  return 'none';
};

describe('document camera client', () => {
  it('RECOG-16: calls the service on port 38088 with its paths and methods', async () => {
    expect(cameraBase(undefined)).toBe(DEFAULT_CAMERA_BASE);
    expect(DEFAULT_CAMERA_BASE).toBe('http://127.0.0.1:38088');
    expect(cameraBase({ getItem: () => 'http://127.0.0.1:38090/' })).toBe('http://127.0.0.1:38090');
    const { client, calls } = service({
      '/device=isconnect': { code: 0, data: 1 },
      '/video=status': { code: '0', video0: 'ok' },
      '/video=close?camidx=0': { code: 0 },
      '/video=grabimage': { code: 0, photoBase64: 'data:image/jpeg;base64,QUJD' },
    });
    await client.ensureConnected();
    expect(await client.isVideoOpen()).toBe(true);
    expect(await client.grab()).toBe('QUJD');
    await client.close();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST /device=isconnect',
      'POST /video=status',
      'POST /video=grabimage',
      'GET /video=close?camidx=0',
    ]);
    expect(client.streamUrl(1)).toBe('http://cam/video=stream&camidx=0&_n=1');
  });

  it('RECOG-05: the photo is requested at most 3300 by 2400, quality 100', async () => {
    const { client, calls } = service({ '/video=grabimage': { code: 0, photoBase64: 'QUJD' } });
    await client.grab();
    expect(calls[0]!.body).toMatchObject({ width: 3300, height: 2400, quality: 100 });
  });

  it('RECOG-17: an SDK code other than 0 shows 请检查设备SDK是否打开', async () => {
    const { client } = service({ '/device=isconnect': { code: 1 }, '/video=grabimage': { code: '-1' } });
    expect(await failure(client.ensureConnected())).toBe('请检查设备SDK是否打开');
    expect(await failure(client.grab())).toBe('请检查设备SDK是否打开');
  });

  it('RECOG-18: no device shows 请检查设备是否已连接', async () => {
    const { client } = service({ '/device=isconnect': { code: 0, data: 0 } });
    expect(await failure(client.ensureConnected())).toBe('请检查设备是否已连接');
  });

  it('RECOG-19: a failed camera call shows 接口获取失败 (no service, an HTTP error, no JSON, no photo)', async () => {
    const { client } = service({
      '/device=isconnect': new TypeError('Failed to fetch'),
      '/video=grabimage': { code: 0 },
    });
    expect(await failure(client.ensureConnected())).toBe('接口获取失败');
    expect(await failure(client.isVideoOpen())).toBe('接口获取失败');
    expect(await failure(client.grab())).toBe('接口获取失败');
    const notJson = new CameraClient('http://cam', () => Promise.resolve(new Response('<html>', { status: 200 })));
    expect(await failure(notJson.close())).toBe('接口获取失败');
  });

  it('RECOG-14: the captured photo becomes a JPEG file named after the moment it was taken', async () => {
    const file = photoFile(btoa('\xff\xd8\xff'), new Date(2026, 10, 27, 8, 5, 9));
    expect(file.name).toBe('高拍仪-20261127080509.jpg');
    expect(file.type).toBe('image/jpeg');
    expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([0xff, 0xd8, 0xff]);
  });
});
