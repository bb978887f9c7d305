import { afterEach, describe, expect, it } from 'vitest';
import {
  applyRootFontSize,
  HEADER_HEIGHT,
  PRIMARY_COLOR,
  PRIMARY_TEXT_COLOR,
  rootFontSize,
  SUB_MENU_BG,
  themeConfig,
  watchRootFontSize,
} from './theme';

function resizeTo(width: number) {
  Object.defineProperty(window, 'innerWidth', { configurable: true, value: width });
  window.dispatchEvent(new Event('resize'));
}

/** WCAG 2.x contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

afterEach(() => {
  document.documentElement.style.fontSize = '';
});

describe('theme', () => {
  it('THEME-09: root font size is 16 px up to 1920 px wide', () => {
    expect(rootFontSize(1280)).toBe(16);
    expect(rootFontSize(1920)).toBe(16);
  });

  it('THEME-09: above 1920 px it scales with width / 1920, capped at twice 16 px', () => {
    expect(rootFontSize(2880)).toBe(24);
    expect(rootFontSize(3840)).toBe(32);
    expect(rootFontSize(7680)).toBe(32);
  });

  it('THEME-09: the root element follows window resizes until unsubscribed', () => {
    resizeTo(1600);
    const stop = watchRootFontSize(window);
    expect(document.documentElement.style.fontSize).toBe('16px');
    resizeTo(2880);
    expect(document.documentElement.style.fontSize).toBe('24px');
    stop();
    resizeTo(3840);
    expect(document.documentElement.style.fontSize).toBe('24px');
    applyRootFontSize(window);
    expect(document.documentElement.style.fontSize).toBe('32px');
  });

  it('THEME-06/THEME-07/THEME-08: primary colour, sub-menu background and header height', () => {
    expect(PRIMARY_COLOR).toBe('#099dad');
    expect(themeConfig.token?.colorInfo).toBe('#099dad');
    expect(SUB_MENU_BG).toBe('#172a5a');
    expect(themeConfig.components?.Menu?.darkSubMenuItemBg).toBe('#172a5a');
    expect(HEADER_HEIGHT).toBe(72);
    expect(themeConfig.components?.Layout?.headerHeight).toBe(72);
  });

  it('THEME-06: text and filled buttons in the primary and the error colour reach WCAG AA 4.5:1, at rest, hovered and pressed', () => {
    // #099dad itself would not: it stays for what carries no text.
    expect(contrast(PRIMARY_COLOR, '#ffffff')).toBeLessThan(4.5);
    const token = themeConfig.token!;
    expect(token.colorPrimary).toBe(PRIMARY_TEXT_COLOR);
    const backgrounds = ['#ffffff', '#f3f6f9', token.colorPrimaryBg!];
    for (const color of [
      token.colorPrimary,
      token.colorPrimaryHover,
      token.colorPrimaryActive,
      token.colorLink,
      token.colorLinkHover,
      token.colorLinkActive,
      token.colorError,
      token.colorErrorHover,
      token.colorErrorActive,
      token.colorErrorText,
      token.colorErrorTextHover,
      token.colorErrorTextActive,
      themeConfig.components?.Menu?.darkItemSelectedBg,
    ]) {
      for (const background of backgrounds) expect(contrast(color!, background)).toBeGreaterThanOrEqual(4.5);
    }
  });
});
