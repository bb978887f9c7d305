import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshot, startPlatform, type Platform } from './harness.js';
import { callApi, prepareAdmin, signInAs } from './api.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A 4×4 grey PNG: the server checks an upload's type by its content. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAADklEQVR4nGNoQAIMxHEAcFIYAYPG8BkAAAAASUVORK5CYII=',
  'base64',
);

interface StoreSettings {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

let store: ChildProcess;
let settings: StoreSettings;
let platform: Platform;
let browser: Browser;
let subjectRecordId: number;

/**
 * The S3-compatible test server (packages/server/src/test/fake-s3.ts) as a process of its own, on 127.0.0.2:
 * another origin than the app's and outside the loopback addresses the page allows for the camera service, so
 * the page reaches it only through the object store's own entries in the content security policy.
 */
async function startStore(): Promise<StoreSettings> {
  store = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/test/fake-s3.ts', '127.0.0.2'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    store.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as StoreSettings);
    });
    store.once('exit', (code) => reject(new Error(`the test object store exited (${code})`)));
  });
}

const control = async (command: 'hold' | 'release' | 'state') =>
  (await (
    await fetch(`${settings.endpoint}/__fake/${command}`, { method: command === 'state' ? 'GET' : 'POST' })
  ).json()) as {
    objects: string[];
    posts: Array<{ key: string; status: number }>;
  };

beforeAll(async () => {
  settings = await startStore();
  platform = await startPlatform({
    env: {
      S3_ENDPOINT: settings.endpoint,
      S3_BUCKET: settings.bucket,
      S3_ACCESS_KEY_ID: settings.accessKeyId,
      S3_SECRET_ACCESS_KEY: settings.secretAccessKey,
      S3_REGION: settings.region,
    },
  });
  browser = await launchBrowser();
  const { token, studyId } = await prepareAdmin(platform.baseUrl);
  const patient = await callApi<{ subjectRecordId: number }>(platform.baseUrl, 'POST', '/api/business/subject', token, {
    studyId,
    subjectName: '李秀英',
    gender: 0,
    birth: '1962-09-03',
    diseaseCode: 'LSS',
  });
  subjectRecordId = patient.subjectRecordId;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  if (store && store.exitCode === null) {
    store.kill('SIGTERM');
    await new Promise((r) => store.once('exit', r));
  }
});

const form = (page: Page) => page.locator('.crf-editor-form');

async function fill(scope: Locator, label: string, value: string) {
  const input = scope.getByLabel(label, { exact: true });
  await input.fill(value);
  await input.blur();
}

/** Waits until every image matched has loaded with pixels (a refused or failed load has naturalWidth 0). */
async function imagesLoaded(page: Page, selector: string) {
  await page.waitForFunction((css) => {
    const images = [...document.querySelectorAll<HTMLImageElement>(css)];
    return images.length > 0 && images.every((img) => img.complete && img.naturalWidth > 0);
  }, selector);
}

describe('uploads in the external network mode (an S3-compatible object store configured)', () => {
  it('UPL-10/UPL-11/UPL-12: an image goes straight to the object store with a progress bar; the value is domain + key (images/timestamp/name) and the picture shows from the store', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    await page.locator('.crf-menu-form', { hasText: '影像学检查' }).click();
    await page.locator('.crf-form-title', { hasText: '影像学检查' }).waitFor();
    await fill(form(page), '检查日期', '2026-01-10');

    // The store receives the bytes but keeps its answer back: the dialog shows how far the upload got.
    await control('hold');
    await form(page).getByRole('group', { name: '正侧位片' }).getByRole('button', { name: '上传图片' }).click();
    const dialog = page.getByRole('dialog', { name: '添加图片' });
    await dialog.locator('input[type=file]').setInputFiles({ name: 'xray.png', mimeType: 'image/png', buffer: PNG });
    const progress = dialog.getByRole('progressbar');
    await progress.waitFor();
    await expect.poll(() => progress.getAttribute('aria-valuenow')).toBe('100');
    await screenshot(page, 'object-storage-progress');
    await control('release');

    await dialog.getByText('上传时间').waitFor();
    await progress.waitFor({ state: 'detached' });
    await imagesLoaded(page, '.crf-upload-preview img');
    await dialog.getByRole('textbox', { name: '备注' }).fill('术前正位片');
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.crf-editor-actions').getByRole('button', { name: '保存' }).click();
    await page.locator('.ant-message-notice', { hasText: '保存成功' }).last().waitFor();

    const thumb = form(page).locator('.crf-media-thumb img').first();
    const src = await thumb.getAttribute('src');
    expect(src).toMatch(/^\/api\/v1\/fileupload\/object\/images\/\d{13}\/xray\.png$/);
    await imagesLoaded(page, '.crf-media-thumb img');
    const key = src!.slice('/api/v1/fileupload/object/'.length);
    const state = await control('state');
    expect(state.objects).toContain(key);
    expect(state.posts).toEqual([{ key, status: 204 }]);
    await screenshot(page, 'object-storage-saved');

    // After a reload the value still reads through the server to the store.
    await page.reload();
    await page.locator('.crf-form-title').first().waitFor();
    await page.locator('.crf-menu-form', { hasText: '影像学检查' }).click();
    await imagesLoaded(page, '.crf-media-thumb img');
    await page.context().close();
  });

  it('UPL-17: a video uploaded through the widget gets its first frame beside it as <video key>_thumbnail.jpg, shown as the tile', async () => {
    const page = await newPage(browser, platform.baseUrl);
    await signInAs(page);
    await page.goto(`/crf/${subjectRecordId}`);
    await page.locator('.crf-form-title', { hasText: '人口学资料' }).waitFor();
    // A short WebM recorded by the browser itself from a painted canvas (no video fixture in the repository).
    const webm = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 160;
      canvas.height = 120;
      const g = canvas.getContext('2d')!;
      const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm' });
      const chunks: Blob[] = [];
      recorder.ondataavailable = (e) => chunks.push(e.data);
      const stopped = new Promise((r) => (recorder.onstop = r));
      recorder.start();
      for (let i = 0; i < 20; i++) {
        g.fillStyle = i % 2 ? '#1677ff' : '#52c41a';
        g.fillRect(0, 0, 160, 120);
        await new Promise((r) => requestAnimationFrame(r));
      }
      recorder.stop();
      await stopped;
      const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
      let text = '';
      for (const b of bytes) text += String.fromCharCode(b);
      return btoa(text);
    });
    await page.locator('.crf-menu-form', { hasText: '术后随访' }).first().click();
    await page.locator('.crf-form-title', { hasText: '术后随访' }).waitFor();
    await form(page).getByRole('group', { name: '步态视频' }).getByRole('button', { name: '上传视频' }).click();
    const dialog = page.getByRole('dialog', { name: '添加视频' });
    await dialog
      .locator('input[type=file]')
      .setInputFiles({ name: 'gait.webm', mimeType: 'video/webm', buffer: Buffer.from(webm, 'base64') });
    await dialog.locator('.crf-upload-preview video').waitFor();
    const videoUrl = await dialog.locator('.crf-upload-preview video').getAttribute('src');
    expect(videoUrl).toMatch(/^\/api\/v1\/fileupload\/object\/videos\/\d{13}\/gait\.webm$/);
    const videoKey = videoUrl!.slice('/api/v1/fileupload/object/'.length);
    // The first frame follows the video to the store, beside it.
    await expect
      .poll(async () => ((await control('state')).posts as { key: string }[]).map((p) => p.key))
      .toContain(`${videoKey}_thumbnail.jpg`);
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The tile shows the picture, not the video.
    await imagesLoaded(page, '.crf-media-thumb img');
    expect(await form(page).locator('.crf-media-thumb img').first().getAttribute('src')).toBe(
      `${videoUrl}_thumbnail.jpg`,
    );
    expect(await form(page).locator('.crf-media-thumb video').count()).toBe(0);
    await screenshot(page, 'object-storage-video-thumbnail');
    await page.context().close();
  });
});
