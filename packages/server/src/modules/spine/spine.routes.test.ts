import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cobbAngles, cobbLevels, defaultSpineTemplate } from '@ecrf/core';
import { seedDemoStudy } from '../../db/demo-study.js';
import { storedFiles, users } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { imageSize } from './image-size.js';
import { SPINE_IMAGE_TYPE, SPINE_NO_MODEL, useSpineDetector } from './spine.service.js';

/** A PNG header of a 1084 × 2437 X-ray (the bytes after it are not read). */
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  Buffer.from([0, 0, 0x04, 0x3c, 0, 0, 0x09, 0x85, 8, 6, 0, 0, 0]),
  Buffer.alloc(64),
]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

let t: TestApp;
let admin: string;
let studyId: number;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-spine-test-'));

const predict = (token: string | null, query: string, data: Buffer | null = PNG, field = 'image') => {
  const form = multipart({}, data === null ? [] : [{ field, fileName: 'xray.png', data }]);
  return t.app.inject({
    method: 'POST',
    url: `/spine_cobb/v2/getprediction?${query}`,
    headers: { ...form.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: form.payload,
  });
};

async function outsider(userName: string) {
  const role = await t.call(admin, 'POST', '/api/system/role', {
    roleName: `外部${userName}`,
    roleKey: `outside${userName}`,
    menuIds: [],
  });
  const user = await t.call(admin, 'POST', '/api/system/user', {
    userName,
    password: 'Passw0rd',
    name: '外部人员',
    deptId: 1,
    roleIds: [role.body.data.roleId],
  });
  await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, user.body.data.userId));
  return (await t.login(userName, 'Passw0rd')).token;
}

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

describe('POST /spine_cobb/v2/getprediction', () => {
  it('SPA-03: needs a signed-in member of the study: 401 without a token, 403 for a non-member, nothing stored', async () => {
    expect((await predict(null, `studyId=${studyId}`)).statusCode).toBe(401);
    const stranger = await outsider('13300000201');
    const refused = await predict(stranger, `studyId=${studyId}`);
    expect(refused.statusCode).toBe(403);
    expect(await t.db.select().from(storedFiles)).toHaveLength(0);
    const nowhere = await predict(admin, '');
    expect(nowhere.statusCode).toBe(400);
  });

  it('SPA-03: with no model installed the image is stored and the answer says so, with no landmarks', async () => {
    const res = await predict(admin, `studyId=${studyId}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.msg).toBe(SPINE_NO_MODEL);
    expect(body.data).toMatchObject({ model: false, landmarks: [], detections: [], imgWidth: 1084, imgHeight: 2437 });
    expect(body.data.imgURL).toMatch(/^[0-9a-f]{32}$/);
    const [row] = await t.db.select().from(storedFiles).where(eq(storedFiles.fileKey, body.data.imgURL));
    expect(row!.studyId).toBe(studyId);
  });

  it('SPA-03: only JPG, PNG or BMP images are read (请上传JPG/PNG/BMP 格式!), and the image goes in the field image', async () => {
    const pdf = await predict(admin, `studyId=${studyId}`, PDF);
    expect(pdf.statusCode).toBe(400);
    expect(pdf.json().msg).toBe(SPINE_IMAGE_TYPE);
    expect((await predict(admin, `studyId=${studyId}`, PNG, 'file')).statusCode).toBe(400);
  });

  it('SPA-04: with a detector the answer is the recognition result, the angles those of cobbAngles', async () => {
    const landmarks = defaultSpineTemplate();
    const half = landmarks.length / 2;
    landmarks[half + 4 * 4 + 1]! -= 0.01;
    landmarks[half + 4 * 4 + 3]! -= 0.01;
    landmarks[half + 12 * 4 + 1]! += 0.01;
    landmarks[half + 12 * 4 + 3]! += 0.01;
    // The column bows 40 px to the right between T5 and L1, most at T9.
    for (let k = 5; k < 12; k++) {
      for (let c = 0; c < 4; c++) landmarks[4 * k + c]! += (40 * Math.sin((Math.PI * (k - 4)) / 8)) / 1084;
    }
    const seen: Array<{ width: number; height: number }> = [];
    useSpineDetector(t.ctx, {
      available: true,
      detect: (_image, size) => {
        seen.push(size);
        return Promise.resolve({
          landmarks,
          detections: [{ xmin: 500, ymin: 290, xmax: 580, ymax: 380, confidence: 0.97 }],
        });
      },
    });
    const res = await predict(admin, `studyId=${studyId}`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(seen).toEqual([expect.objectContaining({ width: 1084, height: 2437 })]);
    const cobb = cobbAngles(landmarks, 1084, 2437);
    expect(data.model).toBe(true);
    expect(data.curve_type).toBe(cobb.curveType);
    for (const key of ['pt', 'mt', 'tl'] as const) {
      expect(data.angles[key].angle).toBeCloseTo(cobb[key].angle, 10);
      expect(data.angles[key].idxs).toEqual(cobb[key].idxs);
    }
    expect(data.angles.pt.angle).toBeGreaterThan(10);
    // Our apex beside each pair: T5–L1 with its apex at T9.
    expect(data.angles.pt.idxs).toEqual([4, 12]);
    expect(data.angles.pt.apex).toBe(8);
    for (const key of ['mt', 'tl'] as const) expect(data.angles[key].apex).toBe(cobbLevels(cobb)[key]?.apex ?? null);
    expect(data.midpoint_lines).toHaveLength(17);
    expect(data.detections).toEqual([{ xmin: 500, ymin: 290, xmax: 580, ymax: 380, confidence: 0.97 }]);
    expect(data.imgURL).toMatch(/^[0-9a-f]{32}$/);
  });

  it('SPA-05: landmarks are 68 x values then 68 y values, normalised 0 to 1; an image already uploaded is named by its key', async () => {
    const form = multipart({}, [{ fileName: 'xray.png', data: PNG }]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    const fileKey = uploaded.json().data.fileKey as string;
    const before = (await t.db.select().from(storedFiles)).length;
    const res = await predict(admin, `fileKey=${fileKey}`, null);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.imgURL).toBe(fileKey);
    expect(data.landmarks).toHaveLength(136);
    expect(data.landmarks.every((v: number) => v >= 0 && v <= 1)).toBe(true);
    expect((await t.db.select().from(storedFiles)).length).toBe(before);
    // Another study's member cannot read a file through it.
    const stranger = await outsider('13300000202');
    expect((await predict(stranger, `fileKey=${fileKey}`, null)).statusCode).toBe(403);
  });

  it('SPA-06: the size is read from PNG, JPEG and BMP headers', () => {
    expect(imageSize(PNG)).toEqual({ width: 1084, height: 2437, type: 'png' });
    const jpeg = Buffer.from(
      'ffd8ffe000104a46494600010100000100010000ffc0001108098504' + '3c03012200021101031101',
      'hex',
    );
    expect(imageSize(jpeg)).toEqual({ width: 1084, height: 2437, type: 'jpeg' });
    const bmp = Buffer.alloc(54);
    bmp.write('BM', 0, 'ascii');
    bmp.writeInt32LE(1084, 18);
    bmp.writeInt32LE(-2437, 22);
    expect(imageSize(bmp)).toEqual({ width: 1084, height: 2437, type: 'bmp' });
    expect(imageSize(PDF)).toBeNull();
  });
});
