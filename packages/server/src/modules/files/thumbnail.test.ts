import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoStudy } from '../../db/demo-study.js';
import { storedFiles } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { thumbnailFileKey } from './file.service.js';

// An ISO base media header with the mp42 brand (what file-type reads as video/mp4), and a JPEG's first bytes.
const MP4 = Buffer.concat([Buffer.from('0000001866747970', 'hex'), Buffer.from('mp42'), Buffer.alloc(256)]);
const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), Buffer.alloc(128)]);
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'),
  Buffer.alloc(64),
]);

let t: TestApp;
let admin: string;
let studyId: number;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-thumb-test-'));

const upload = (token: string, fileName: string, data: Buffer, thumbnailOf?: string) => {
  const form = multipart({}, [{ fileName, data }]);
  const query = thumbnailOf === undefined ? '' : `&thumbnailOf=${thumbnailOf}`;
  return t.app.inject({
    method: 'POST',
    url: `/api/common/file/upload?studyId=${studyId}${query}`,
    headers: { ...form.headers, authorization: `Bearer ${token}` },
    payload: form.payload,
  });
};
const read = (token: string, fileKey: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
    headers: { authorization: `Bearer ${token}` },
  });

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('video thumbnails (internal network mode)', () => {
  it('UPL-17: a first frame uploaded after its video is stored and read as <video key>_thumbnail.jpg under the video’s rule', async () => {
    const nurse = await addStudyMember(t, admin, studyId, '13300000171', { permissions: [] });
    const video = await upload(nurse, 'gait.mp4', MP4);
    expect(video.statusCode, video.body).toBe(200);
    const videoKey = video.json().data.fileKey as string;
    expect(video.json().data.contentType).toBe('video/mp4');

    // Not a JPEG: refused, and nothing is kept.
    const png = await upload(nurse, 'gait.mp4_thumbnail.jpg', PNG, videoKey);
    expect(png.statusCode).toBe(400);
    const thumb = await upload(nurse, 'gait.mp4_thumbnail.jpg', JPEG, videoKey);
    expect(thumb.statusCode, thumb.body).toBe(200);
    const [row] = await t.db
      .select()
      .from(storedFiles)
      .where(eq(storedFiles.fileKey, thumbnailFileKey(videoKey)));
    expect(row).toMatchObject({ studyId, fileName: 'gait.mp4_thumbnail.jpg', contentType: 'image/jpeg' });

    const got = await read(nurse, `${videoKey}_thumbnail.jpg`);
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/jpeg');
    expect(got.rawPayload.equals(JPEG)).toBe(true);

    // Once per video, and only by the video's uploader (nobody puts a picture in front of another's video).
    expect((await upload(nurse, 'again_thumbnail.jpg', JPEG, videoKey)).statusCode).toBe(409);
    const other = await addStudyMember(t, admin, studyId, '13300000172', { permissions: [] });
    const other2 = await upload(
      other,
      'x_thumbnail.jpg',
      JPEG,
      (await upload(admin, 'b.mp4', MP4)).json().data.fileKey,
    );
    expect(other2.statusCode).toBe(404);
    // Only a video gets one.
    const image = (await upload(nurse, 'x.png', PNG)).json().data.fileKey as string;
    expect((await upload(nurse, 'x_thumbnail.jpg', JPEG, image)).statusCode).toBe(404);

    // The same permission as the video, user by user: its uploader and the study's manager read both; a member
    // who may see no form of the video (not saved in any record yet) reads neither.
    const noForms = await addStudyMember(t, admin, studyId, '13300000173', { permissions: [] });
    for (const [token, status] of [
      [nurse, 200],
      [admin, 200],
      [other, 403],
      [noForms, 403],
    ] as const) {
      expect((await read(token, videoKey)).statusCode).toBe(status);
      expect((await read(token, `${videoKey}_thumbnail.jpg`)).statusCode).toBe(status);
    }
    // A video without a thumbnail answers 404 there, so the widget falls back to the video itself.
    const bare = (await upload(nurse, 'bare.mp4', MP4)).json().data.fileKey as string;
    expect((await read(nurse, `${bare}_thumbnail.jpg`)).statusCode).toBe(404);
  });
});
