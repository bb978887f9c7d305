import fs from 'node:fs';

/**
 * The server's clock for browser tests that let days pass (a follow-up visit's window closing): with
 * EDC_TEST_CLOCK_FILE set, now is the real time plus the milliseconds written in that file (re-read at most every
 * 200 ms; a missing or unreadable file means no offset). Never set in production: without the variable the clock
 * is the system's.
 */
export function serverClock(env: NodeJS.ProcessEnv = process.env): () => Date {
  const file = env.EDC_TEST_CLOCK_FILE;
  if (!file) return () => new Date();
  let offset = 0;
  let readAt = -Infinity;
  return () => {
    const now = Date.now();
    if (now - readAt > 200) {
      readAt = now;
      try {
        offset = Number(fs.readFileSync(file, 'utf8').trim()) || 0;
      } catch {
        offset = 0;
      }
    }
    return new Date(now + offset);
  };
}
