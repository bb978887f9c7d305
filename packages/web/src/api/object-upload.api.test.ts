import axios from 'axios';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readUploadToken, uploadToStorage } from './object-upload.api';
import { http } from './request';

afterEach(() => vi.restoreAllMocks());

const tokenOf = (value: unknown) => {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
};

describe('uploads in the external network mode', () => {
  it('UPL-10/UPL-11: an upload asks GET /api/v1/qiniu/upload/token?type=1 first; an installation without a store answers the internal mode and the file goes to this server', async () => {
    const get = vi.spyOn(http, 'get').mockResolvedValue({ code: 200, msg: '', data: { networkMode: 'internal' } });
    const post = vi.spyOn(http, 'post').mockResolvedValue({
      code: 200,
      msg: '上传成功',
      data: { fileKey: 'k1', filePath: 'k1', fileName: 'a.png', size: 3, contentType: 'image/png' },
    });
    const file = new File(['png'], 'a.png', { type: 'image/png' });
    await expect(uploadToStorage(5, file, 'image')).resolves.toEqual({ fileKey: 'k1' });
    expect(get).toHaveBeenCalledWith('/api/v1/qiniu/upload/token', {
      params: { studyId: 5, type: 1, fileName: 'a.png', size: 3 },
      silent: true,
    });
    expect(post.mock.calls[0]![0]).toBe('/api/common/file/upload');
  });

  it('UPL-12: the file goes straight to the store with the signed fields and a progress callback; the value is domain + key', async () => {
    const fields = { key: 'images/1795334400000/胸片.png', Policy: 'cG9saWN5', 'X-Amz-Signature': 'abc' };
    vi.spyOn(http, 'get').mockResolvedValue({
      code: 200,
      msg: '',
      data: {
        networkMode: 'external',
        uploadToken: tokenOf({ url: 'http://store.example/edc', fields }),
        domain: '/api/v1/fileupload/object/',
        key: fields.key,
      },
    });
    expect(readUploadToken(tokenOf({ url: 'u', fields })).fields.key).toBe(fields.key);
    const sent = vi.spyOn(axios, 'post').mockImplementation(async (_url, _body, config) => {
      config?.onUploadProgress?.({ loaded: 50, total: 100, bytes: 50, lengthComputable: true });
      config?.onUploadProgress?.({ loaded: 100, total: 100, bytes: 50, lengthComputable: true });
      return { status: 204 };
    });
    const confirm = vi.spyOn(http, 'post').mockResolvedValue({
      code: 200,
      msg: '上传成功',
      data: { url: `/api/v1/fileupload/object/${fields.key}` },
    });
    const progress: number[] = [];
    const file = new File(['png'], '胸片.png', { type: 'image/png' });
    await expect(uploadToStorage(5, file, 'image', (p) => progress.push(p))).resolves.toEqual({
      url: '/api/v1/fileupload/object/images/1795334400000/胸片.png',
    });
    const [url, body] = sent.mock.calls[0]!;
    expect(url).toBe('http://store.example/edc');
    const form = body as FormData;
    expect(form.get('key')).toBe(fields.key);
    expect(form.get('Content-Type')).toBe('image/png');
    expect((form.get('file') as File).name).toBe('胸片.png');
    // The file is the last field, as S3 requires.
    expect([...form.keys()].at(-1)).toBe('file');
    expect(progress).toEqual([0, 50, 100]);
    expect(confirm).toHaveBeenCalledWith(
      '/api/v1/qiniu/upload/confirm',
      { key: fields.key },
      { params: { studyId: 5 }, silent: true },
    );
  });

  it('UPL-12: a refusal by the store rejects without a message of its own (the widget shows 上传失败), and nothing is confirmed', async () => {
    vi.spyOn(http, 'get').mockResolvedValue({
      code: 200,
      msg: '',
      data: {
        networkMode: 'external',
        uploadToken: tokenOf({ url: 'http://store.example/edc', fields: {} }),
        domain: '/api/v1/fileupload/object/',
        key: 'images/1/a.png',
      },
    });
    vi.spyOn(axios, 'post').mockRejectedValue(new Error('403'));
    const confirm = vi.spyOn(http, 'post');
    await expect(uploadToStorage(5, new File(['x'], 'a.png', { type: 'image/png' }), 'image')).rejects.toThrow(/^$/);
    expect(confirm).not.toHaveBeenCalled();
  });
});
