import { afterEach, describe, expect, it } from 'vitest';
import {
  applyRootFontSize,
  HEADER_HEIGHT,
  PRIMARY_COLOR,
  rootFontSize,
  SUB_MENU_BG,
  themeConfig,
  watchRootFontSize,
} from './theme';

function resizeTo(width: number) {
  Object.defineProperty(window, 'innerWidth', { configurable: true, value: width });
  window.dispatchEvent(new Event('resize'));
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
    expect(themeConfig.token?.colorPrimary).toBe('#099dad');
    expect(SUB_MENU_BG).toBe('#172a5a');
    expect(themeConfig.components?.Menu?.darkSubMenuItemBg).toBe('#172a5a');
    expect(HEADER_HEIGHT).toBe(72);
    expect(themeConfig.components?.Layout?.headerHeight).toBe(72);
  });
});
