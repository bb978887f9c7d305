import { describe, expect, it } from 'vitest';
import type { CrfDefinition } from '@ecrf/core';
import { ApiError } from '../../../api/request';
import { identifyTemplates } from './identify-templates';
import { recogniseImage, type RecogniseDeps } from './recognise-flow';

const [template] = identifyTemplates(
  {
    option: {},
    children: [{ id: 'wbc', name: 'wbc', title: '白细胞计数', type: 'real', option: {}, children: [] }],
  } as unknown as CrfDefinition,
  { identifyType: 2, identifyIndex: 3 },
  '血常规',
);

const answer = {
  items: [{ projectName: '白细胞计数', projectCode: 'WBC', result: '6.52', unit: '', referenceRange: '', flag: '' }],
  fileKey: 'f'.repeat(32),
  recognitionId: 7,
};

function deps(overrides: Partial<RecogniseDeps> = {}) {
  const log: string[] = [];
  const base: RecogniseDeps = {
    upload: (file) => {
      log.push(`upload ${file.name}`);
      return Promise.resolve({ fileKey: 'f'.repeat(32) });
    },
    temp: (fileKey) => {
      log.push(`temp ${fileKey.length}`);
      return Promise.resolve({ tempId: 'T1', expiresIn: 600 });
    },
    recognise: (body) => {
      log.push(`recognise ${JSON.stringify(body)}`);
      return Promise.resolve(answer);
    },
    job: () => Promise.reject(new Error('no job')),
    pause: () => Promise.resolve(),
  };
  return { deps: { ...base, ...overrides }, log };
}

const file = new File([new Uint8Array([1])], 'report.png', { type: 'image/png' });

const failureOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 'none';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('recognising an image', () => {
  it('RECOG-06: uploads the image, asks a tempId for it, then recognises with url, type, index and tempId', async () => {
    const { deps: d, log } = deps();
    const outcome = await recogniseImage(d, template!, file);
    expect(log).toEqual([
      'upload report.png',
      'temp 32',
      `recognise ${JSON.stringify({ url: 'f'.repeat(32), type: 2, index: 3, tempId: 'T1' })}`,
    ]);
    expect(outcome.values).toEqual({ wbc: '6.52' });
    expect(outcome.recognitionId).toBe(7);
  });

  it('RECOG-12: a refused or failed recognition is 识别失败; a server without the engine says so', async () => {
    const refused = deps({ recognise: () => Promise.reject(new ApiError(403, '识别失败', 403)) });
    expect(await failureOf(recogniseImage(refused.deps, template!, file))).toBe('识别失败');
    const unreadable = deps({ recognise: () => Promise.reject(new ApiError(422, '识别失败', 422)) });
    expect(await failureOf(recogniseImage(unreadable.deps, template!, file))).toBe('识别失败');
    const offline = deps({ recognise: () => Promise.reject(new TypeError('network')) });
    expect(await failureOf(recogniseImage(offline.deps, template!, file))).toBe('识别失败');
    const missing = deps({ recognise: () => Promise.reject(new ApiError(503, '识别服务未安装', 503)) });
    expect(await failureOf(recogniseImage(missing.deps, template!, file))).toBe('识别服务未安装');
  });

  it('RECOG-12: a refusal the person can act on is 识别失败 with its reason (an image too large, too many requests)', async () => {
    const tooLarge = deps({ recognise: () => Promise.reject(new ApiError(422, '图片尺寸过大，请缩小后重试', 422)) });
    expect(await failureOf(recogniseImage(tooLarge.deps, template!, file))).toBe(
      '识别失败：图片尺寸过大，请缩小后重试',
    );
    const tooMany = deps({ temp: () => Promise.reject(new ApiError(429, '识别请求过于频繁，请稍后再试', 429)) });
    expect(await failureOf(recogniseImage(tooMany.deps, template!, file))).toBe(
      '识别失败：识别请求过于频繁，请稍后再试',
    );
  });

  it('RECOG-06: an answer of 202 is followed through its job until the job is done', async () => {
    const states = ['running', 'done'];
    const slow = deps({
      recognise: () => Promise.reject(new ApiError(202, '识别仍在进行，请稍后查看', 200, { jobId: 'J1' })),
      job: (jobId) => Promise.resolve({ jobId, state: states.shift() as 'running' | 'done', result: answer }),
    });
    const outcome = await recogniseImage(slow.deps, template!, file);
    expect(outcome.values).toEqual({ wbc: '6.52' });
    const failed = deps({
      recognise: () => Promise.reject(new ApiError(202, '', 200, { jobId: 'J2' })),
      job: (jobId) => Promise.resolve({ jobId, state: 'failed' }),
    });
    expect(await failureOf(recogniseImage(failed.deps, template!, file))).toBe('识别失败');
  });
});
