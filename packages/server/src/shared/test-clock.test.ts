import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverClock } from './test-clock.js';

describe('server clock', () => {
  it('is the system clock without EDC_TEST_CLOCK_FILE', () => {
    const clock = serverClock({});
    expect(Math.abs(clock().getTime() - Date.now())).toBeLessThan(1000);
  });

  it('runs ahead by the offset in the file, and without one when the file is missing', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'edc-clock-')), 'offset');
    fs.writeFileSync(file, String(20 * 86_400_000));
    const ahead = serverClock({ EDC_TEST_CLOCK_FILE: file });
    expect(ahead().getTime() - Date.now()).toBeGreaterThan(20 * 86_400_000 - 1000);
    const missing = serverClock({ EDC_TEST_CLOCK_FILE: `${file}.none` });
    expect(Math.abs(missing().getTime() - Date.now())).toBeLessThan(1000);
  });
});
