import type { JobQueue } from './job-queue.js';

/** The kind of the job browser tests start; registered only when EDC_TEST_JOBS=1, never in production. */
export const TEST_JOB_KIND = 'test.count';

export function testJobsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.EDC_TEST_JOBS === '1';
}

export interface TestJobPayload {
  steps: number;
  stepMs: number;
}

function pause(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Counts to `steps`, one step every `stepMs`, reporting each, and keeps a small text file as its result. */
export function registerTestJobs(jobs: JobQueue) {
  jobs.handle<TestJobPayload, { counted: number }>(TEST_JOB_KIND, async (job, { progress, signal, saveResultFile }) => {
    const steps = Math.max(1, Math.min(100, job.payload.steps));
    for (let i = 1; i <= steps; i++) {
      await pause(Math.max(0, Math.min(5_000, job.payload.stepMs)), signal);
      if (signal.aborted) return { counted: i - 1 };
      await progress((i / steps) * 100, `正在处理 ${i}/${steps}`);
    }
    await saveResultFile({
      fileName: '测试任务结果.txt',
      contentType: 'text/plain; charset=utf-8',
      data: Buffer.from(`counted ${steps}\n`),
    });
    return { counted: steps };
  });
}
