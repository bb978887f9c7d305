import type { ThemeConfig } from 'antd';

/** platform §9 constants. */
export const PRIMARY_COLOR = '#099dad';
/**
 * #099dad reaches only 3.26:1 against white, short of WCAG AA's 4.5:1 for text, and antd draws link and
 * button text, and white text on filled buttons, in its primary colour. Those use the next darker step of the
 * palette antd derives from #099dad (its own pressed shade, 5.39:1), and a darker one still on hover and press;
 * the light tints and borders stay those of #099dad, and #099dad itself stays wherever no text sits on it or
 * in it (icons, progress bar, chart bars, the login backdrop). docs/decisions.md, accessibility.
 */
export const PRIMARY_TEXT_COLOR = '#007587';
const PRIMARY_TEXT_HOVER = '#00606f';
const PRIMARY_TEXT_ACTIVE = '#005161';
/** antd's red-7: the default error red (#ff4d4f) reaches 3.26:1 on white. */
const ERROR_COLOR = '#cf1322';
/** Hovered and pressed red links and buttons go darker (red-8, red-9), not lighter: antd's derived hover red reaches 4.34:1. */
const ERROR_HOVER = '#a8071a';
const ERROR_ACTIVE = '#820014';
/** Secondary text (hints, empty states, placeholders) at 5.3:1 instead of antd's 3.4:1 (placeholders 1.8:1). */
const TEXT_TERTIARY = 'rgba(0, 0, 0, 0.58)';
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
    colorPrimary: PRIMARY_TEXT_COLOR,
    colorPrimaryHover: PRIMARY_TEXT_HOVER,
    colorPrimaryActive: PRIMARY_TEXT_ACTIVE,
    colorPrimaryText: PRIMARY_TEXT_COLOR,
    colorPrimaryTextHover: PRIMARY_TEXT_HOVER,
    colorPrimaryTextActive: PRIMARY_TEXT_ACTIVE,
    // The tints of #099dad's own palette, the lightest a little lighter so that primary text on it (a selected
    // menu entry) keeps 4.5:1.
    colorPrimaryBg: '#e6f6f6',
    colorPrimaryBgHover: '#9be0de',
    colorPrimaryBorder: '#9be0de',
    colorPrimaryBorderHover: '#70d4d4',
    colorInfo: PRIMARY_COLOR,
    colorLink: PRIMARY_TEXT_COLOR,
    colorLinkHover: PRIMARY_TEXT_HOVER,
    colorLinkActive: PRIMARY_TEXT_ACTIVE,
    colorError: ERROR_COLOR,
    colorErrorHover: ERROR_HOVER,
    colorErrorActive: ERROR_ACTIVE,
    colorErrorText: ERROR_COLOR,
    colorErrorTextHover: ERROR_HOVER,
    colorErrorTextActive: ERROR_ACTIVE,
    colorTextTertiary: TEXT_TERTIARY,
    colorTextPlaceholder: TEXT_TERTIARY,
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
      darkItemSelectedBg: PRIMARY_TEXT_COLOR,
      darkPopupBg: SUB_MENU_BG,
    },
    // A tag's text sits on its light tint: the preset and status colours whose text step falls short of 4.5:1
    // take the next darker step of their palette (for tags only: icons and badges keep theirs).
    Tag: {
      colorSuccess: '#237804',
      colorWarning: '#ad4e00',
      colorInfo: PRIMARY_TEXT_HOVER,
      green7: '#237804',
      cyan7: '#006d75',
      orange7: '#ad4e00',
      gold7: '#874d00',
      lime7: '#3f6600',
      yellow7: '#614700',
      volcano7: '#ad2102',
    },
  },
};
