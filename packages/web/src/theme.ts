import type { ThemeConfig } from 'antd';

/** platform §9 constants. */
export const PRIMARY_COLOR = '#099dad';
export const SUB_MENU_BG = '#172a5a';
export const MENU_BG = '#0e1f4a';
export const HEADER_HEIGHT = 72;
/** Forms lay out on a 24-column grid: antd Col spans are out of this. */
export const FORM_COLUMNS = 24;
export const BASE_FONT_SIZE = 16;
export const DESIGN_WIDTH = 1920;
export const MAX_FONT_SCALE = 2;

/** Root font size: 16 px up to 1920 px wide, then growing with the width, at most doubled. */
export function rootFontSize(windowWidth: number): number {
  const factor = Math.min(Math.max(windowWidth / DESIGN_WIDTH, 1), MAX_FONT_SCALE);
  return BASE_FONT_SIZE * factor;
}

export function applyRootFontSize(win: Window = window): void {
  win.document.documentElement.style.fontSize = `${rootFontSize(win.innerWidth)}px`;
}

/** Applies the root font size now and on every resize; returns the unsubscribe function. */
export function watchRootFontSize(win: Window = window): () => void {
  const onResize = () => applyRootFontSize(win);
  onResize();
  win.addEventListener('resize', onResize);
  return () => win.removeEventListener('resize', onResize);
}

export const themeConfig: ThemeConfig = {
  token: {
    colorPrimary: PRIMARY_COLOR,
    colorInfo: PRIMARY_COLOR,
    colorLink: PRIMARY_COLOR,
    borderRadius: 4,
  },
  components: {
    Layout: {
      headerHeight: HEADER_HEIGHT,
      headerBg: '#ffffff',
      headerPadding: '0 20px',
      siderBg: MENU_BG,
      bodyBg: '#f3f6f9',
    },
    Menu: {
      darkItemBg: MENU_BG,
      darkSubMenuItemBg: SUB_MENU_BG,
      darkItemSelectedBg: PRIMARY_COLOR,
      darkPopupBg: SUB_MENU_BG,
    },
  },
};
