import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { Button, Drawer, Grid } from 'antd';
import { UnorderedListOutlined } from '@ant-design/icons';
import { create } from 'zustand';
import { CRF_PAGE_TEXT } from '../locales/crf-page.zh-CN';
import { MENU_WIDTH_COLLAPSED, MENU_WIDTH_EXPANDED } from '../stores/app.store';
import './crf-layout.css';

interface CrfLayoutState {
  /** The CRF sidebar is folded to 50 (CRF-11); kept across forms and patients. */
  folded: boolean;
  /** On a narrow screen the sidebar is a drawer; whether it is open. */
  drawerOpen: boolean;
  /** The element of the top bar that holds the CRF page's buttons. */
  slot: HTMLElement | null;
  /** The element at the start of the top bar, before the title (the form tree button on a narrow screen). */
  leadSlot: HTMLElement | null;
  setFolded: (folded: boolean) => void;
  setDrawerOpen: (open: boolean) => void;
  setSlot: (slot: HTMLElement | null) => void;
  setLeadSlot: (slot: HTMLElement | null) => void;
}

export const useCrfLayout = create<CrfLayoutState>()((set) => ({
  folded: false,
  drawerOpen: false,
  slot: null,
  leadSlot: null,
  setFolded: (folded) => set({ folded }),
  setDrawerOpen: (drawerOpen) => set({ drawerOpen }),
  setSlot: (slot) => set({ slot }),
  setLeadSlot: (leadSlot) => set({ leadSlot }),
}));

/** CRF-11: the menu is 282 wide open and 50 folded. */
export function crfSiderWidth(folded: boolean): number {
  return folded ? MENU_WIDTH_COLLAPSED : MENU_WIDTH_EXPANDED;
}

/** How much room the CRF page has (antd's Grid breakpoints, see docs/decisions.md "CRF page on small screens"). */
export interface CrfScreen {
  /** Below lg (992): the form tree is a drawer and the top bar's buttons fold into 更多 (820 px tablets, phones). */
  compact: boolean;
  /** Below xl (1200): the item panel (history, SDV, queries) opens on demand instead of standing beside the form. */
  panelOnDemand: boolean;
  /** Below md (768): one column, rows as stacked cards. */
  phone: boolean;
}

export function useCrfScreen(): CrfScreen {
  const screens = Grid.useBreakpoint();
  // antd measures in a layout effect: the first render (no answer yet) is a desktop one, corrected before paint.
  const compact = screens.lg === false;
  const panelOnDemand = screens.xl === false;
  const phone = screens.md === false;
  return useMemo(() => ({ compact, panelOnDemand, phone }), [compact, panelOnDemand, phone]);
}

/** Where the sidebar is shown: beside the page, or in the drawer of a narrow screen (never folded there). */
const SiderPlacement = createContext<'aside' | 'drawer'>('aside');
export const useSiderPlacement = () => useContext(SiderPlacement);

/**
 * Where the top bar of the crf layout puts the form page's buttons (forms §2: 打印, 影像, 识别,
 * 质疑 …). The top bar renders this empty element; the page fills it through a portal, so the
 * buttons know the open form without the shell knowing anything about forms.
 */
export function CrfTopBarSlot() {
  const setSlot = useCrfLayout((s) => s.setSlot);
  const ref = useCallback((node: HTMLDivElement | null) => setSlot(node), [setSlot]);
  return <div ref={ref} className="crf-top-bar-slot" />;
}

/** The start of the crf top bar, before the title. */
export function CrfTopBarLeadSlot() {
  const setLeadSlot = useCrfLayout((s) => s.setLeadSlot);
  const ref = useCallback((node: HTMLDivElement | null) => setLeadSlot(node), [setLeadSlot]);
  return <div ref={ref} className="crf-top-bar-lead" />;
}

/** Renders its children into the top bar of the crf layout (nothing while the bar is not there). */
export function CrfTopBarActions({ children }: { children: ReactNode }) {
  const slot = useCrfLayout((s) => s.slot);
  return slot ? createPortal(children, slot) : null;
}

/**
 * The /crf layout (CRF-02): the CRF sidebar beside the page, under the shell's top bar, which in
 * this layout has no personal menu and carries the form's buttons instead. On a narrow screen the
 * sidebar moves into a drawer opened from 表单目录 at the start of the top bar, and the page takes
 * the whole width.
 */
export function CrfLayout({ sidebar, children }: { sidebar: ReactNode; children: ReactNode }) {
  const folded = useCrfLayout((s) => s.folded);
  const drawerOpen = useCrfLayout((s) => s.drawerOpen);
  const setDrawerOpen = useCrfLayout((s) => s.setDrawerOpen);
  const leadSlot = useCrfLayout((s) => s.leadSlot);
  const { compact } = useCrfScreen();
  const width = crfSiderWidth(folded);

  // One tree for both widths, the page always second: turning a tablet must not remount the form being typed into.
  return (
    <div className={`crf-layout${compact ? ' crf-layout-compact' : folded ? ' crf-layout-folded' : ''}`}>
      {compact ? null : (
        <aside className="crf-sider" style={{ width, flexBasis: width }} aria-label="CRF">
          {sidebar}
        </aside>
      )}
      <main className="crf-main">{children}</main>
      {compact &&
        leadSlot &&
        createPortal(
          <Button
            type="text"
            className="crf-tree-button"
            icon={<UnorderedListOutlined />}
            aria-expanded={drawerOpen}
            onClick={() => setDrawerOpen(true)}
          >
            {CRF_PAGE_TEXT.formTree}
          </Button>,
          leadSlot,
        )}
      {compact && (
        <Drawer
          open={drawerOpen}
          placement="left"
          size={MENU_WIDTH_EXPANDED}
          title={CRF_PAGE_TEXT.formTree}
          onClose={() => setDrawerOpen(false)}
          rootClassName="crf-tree-drawer"
          styles={{ body: { padding: 0 } }}
        >
          <SiderPlacement.Provider value="drawer">{sidebar}</SiderPlacement.Provider>
        </Drawer>
      )}
    </div>
  );
}
