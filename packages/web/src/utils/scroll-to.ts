/** platform §9: after a page change the table scrolls back to the top over 800 ms. */
export const SCROLL_TOP_MS = 800;

export function easeInOutQuad(t: number): number {
  return t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
}

/**
 * Animates the window scroll to `to` with requestAnimationFrame, so the duration is ours
 * and not the browser's smooth-scroll default. Resolves when the animation ends.
 */
export function scrollTo(to: number, duration: number = SCROLL_TOP_MS, win: Window = window): Promise<void> {
  const from = win.scrollY || win.document.documentElement.scrollTop || 0;
  if (from === to || duration <= 0) {
    win.scrollTo(0, to);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const start = win.performance.now();
    const step = (now: number) => {
      const t = Math.min((now - start) / duration, 1);
      win.scrollTo(0, from + (to - from) * easeInOutQuad(t));
      if (t < 1) win.requestAnimationFrame(step);
      else resolve();
    };
    win.requestAnimationFrame(step);
  });
}
