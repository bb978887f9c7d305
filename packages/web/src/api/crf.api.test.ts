import { afterEach, describe, expect, it, vi } from 'vitest';
import { crfRecordApi } from './crf.api';
import { http } from './request';

afterEach(() => vi.restoreAllMocks());

describe('file upload call', () => {
  it('UPL-14/UPL-15: a file is uploaded with POST /api/common/file/upload as multipart (file and studyId)', async () => {
    const uploaded = {
      fileKey: 'a1b2c3',
      filePath: 'a1b2c3',
      fileName: '术前正位片.png',
      size: 3,
      contentType: 'image/png',
    };
    const post = vi.spyOn(http, 'post').mockResolvedValue({ code: 200, msg: '上传成功', data: uploaded });
    const file = new File(['png'], '术前正位片.png', { type: 'image/png' });
    await expect(crfRecordApi.upload(5, file)).resolves.toMatchObject({ data: uploaded });
    expect(post).toHaveBeenCalledTimes(1);
    const [url, body, options] = post.mock.calls[0]!;
    expect(url).toBe('/api/common/file/upload');
    expect(body).toBeInstanceOf(FormData);
    expect((body as FormData).get('studyId')).toBe('5');
    expect(((body as FormData).get('file') as File).name).toBe('术前正位片.png');
    expect(options).toMatchObject({ params: { studyId: 5 } });
  });
});
