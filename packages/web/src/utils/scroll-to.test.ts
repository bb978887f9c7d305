import { afterEach, describe, expect, it, vi } from 'vitest';
import { easeInOutQuad, scrollTo, SCROLL_TOP_MS } from './scroll-to';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('scroll to top', () => {
  it('THEME-05: after a page change the table scrolls to the top over 800 ms, frame by frame', async () => {
    expect(SCROLL_TOP_MS).toBe(800);
    let now = 0;
    const frames: FrameRequestCallback[] = [];
    const positions: number[] = [];
    Object.defineProperty(window, 'scrollY', { configurable: true, value: 1000 });
    vi.spyOn(window.performance, 'now').mockImplementation(() => now);
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((cb) => {
      frames.push(cb);
      return frames.length;
    });
    vi.spyOn(window, 'scrollTo').mockImplementation(((_x: number, y: number) => {
      positions.push(y);
    }) as unknown as typeof window.scrollTo);

    const done = scrollTo(0);
    for (const t of [100, 400, 700, 800]) {
      now = t;
      frames.shift()!(t);
    }
    await done;
    expect(positions[0]).toBeGreaterThan(900);
    expect(positions[1]).toBeCloseTo(500, 0);
    expect(positions.at(-1)).toBe(0);
    expect(frames).toHaveLength(0);
  });

  it('THEME-05: the easing starts and ends slowly', () => {
    expect(easeInOutQuad(0)).toBe(0);
    expect(easeInOutQuad(0.5)).toBe(0.5);
    expect(easeInOutQuad(1)).toBe(1);
    expect(easeInOutQuad(0.1)).toBeLessThan(0.1);
  });
});
