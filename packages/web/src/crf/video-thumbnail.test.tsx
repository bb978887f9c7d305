import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, waitFor } from '@testing-library/react';
import { thumbnailValue } from '../utils/file-values';
import { form, item, renderCrf } from './test/crf-test-utils';
import { thumbnailUrl } from './upload-rules';

afterEach(cleanup);

const KEY = '0123456789abcdef0123456789abcdef';

describe('video thumbnails (forms §7)', () => {
  it.each([
    // Internal: the stored key plus the suffix, read through the download call.
    [KEY, `${KEY}_thumbnail.jpg`, `/api/v1/fileupload/downfile?fileKey=${KEY}_thumbnail.jpg`],
    // External: domain + key plus the suffix, beside the video in the store.
    [
      '/api/v1/fileupload/object/videos/1795334400000/步态.mp4',
      '/api/v1/fileupload/object/videos/1795334400000/步态.mp4_thumbnail.jpg',
      '/api/v1/fileupload/object/videos/1795334400000/步态.mp4_thumbnail.jpg',
    ],
    // An outside address (an allow-listed import) has none: no request to a foreign host.
    ['https://oss.example/videos/1/gait.mp4', null, null],
    ['/api/v1/fileupload/object/', null, null],
    ['not-a-key', null, null],
  ])('UPL-17: the thumbnail of %s is derived from the video value', (video, value, url) => {
    expect(thumbnailValue(video)).toBe(value);
    expect(thumbnailUrl(video)).toBe(url);
  });

  it('UPL-17: a video tile shows the first frame instead of loading the video, and the video when there is none', async () => {
    const stored = JSON.stringify([
      { videoTime: '2024-06-01 10:00:00', remarks: '步态', dialogVideoUrl: KEY },
      { videoTime: '2024-06-01 10:00:00', remarks: '外部', dialogVideoUrl: 'https://oss.example/videos/1/a.mp4' },
    ]);
    const { container } = renderCrf(form([item('videoUpload', 'gait', '步态视频')]), { gait: stored });
    const tiles = () => [...container.querySelectorAll('.crf-media-thumb')];
    await waitFor(() => expect(tiles()).toHaveLength(2));
    const img = tiles()[0]!.querySelector('img')!;
    expect(img.getAttribute('src')).toBe(`/api/v1/fileupload/downfile?fileKey=${KEY}_thumbnail.jpg`);
    expect(tiles()[0]!.querySelector('video')).toBeNull();
    expect(tiles()[1]!.querySelector('video')?.getAttribute('src')).toBe('https://oss.example/videos/1/a.mp4');
    // No thumbnail stored (404): the tile falls back to the video.
    fireEvent.error(img);
    await waitFor(() =>
      expect(tiles()[0]!.querySelector('video')?.getAttribute('src')).toBe(
        `/api/v1/fileupload/downfile?fileKey=${KEY}`,
      ),
    );
  });
});
