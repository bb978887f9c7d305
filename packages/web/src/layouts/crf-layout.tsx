import { useCallback, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { create } from 'zustand';
import { MENU_WIDTH_COLLAPSED, MENU_WIDTH_EXPANDED } from '../stores/app.store';
import './crf-layout.css';

interface CrfLayoutState {
  /** The CRF sidebar is folded to 50 (CRF-11); kept across forms and patients. */
  folded: boolean;
  /** The element of the top bar that holds the CRF page's buttons. */
  slot: HTMLElement | null;
  setFolded: (folded: boolean) => void;
  setSlot: (slot: HTMLElement | null) => void;
}

export const useCrfLayout = create<CrfLayoutState>()((set) => ({
  folded: false,
  slot: null,
  setFolded: (folded) => set({ folded }),
  setSlot: (slot) => set({ slot }),
}));

/** CRF-11: the menu is 282 wide open and 50 folded. */
export function crfSiderWidth(folded: boolean): number {
  return folded ? MENU_WIDTH_COLLAPSED : MENU_WIDTH_EXPANDED;
}

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

/** Renders its children into the top bar of the crf layout (nothing while the bar is not there). */
export function CrfTopBarActions({ children }: { children: ReactNode }) {
  const slot = useCrfLayout((s) => s.slot);
  return slot ? createPortal(children, slot) : null;
}

/**
 * The /crf layout (CRF-02): the CRF sidebar beside the page, under the shell's top bar, which in
 * this layout has no personal menu and carries the form's buttons instead.
 */
export function CrfLayout({ sidebar, children }: { sidebar: ReactNode; children: ReactNode }) {
  const folded = useCrfLayout((s) => s.folded);
  const width = crfSiderWidth(folded);
  return (
    <div className={`crf-layout${folded ? ' crf-layout-folded' : ''}`}>
      <aside className="crf-sider" style={{ width, flexBasis: width }} aria-label="CRF">
        {sidebar}
      </aside>
      <main className="crf-main">{children}</main>
    </div>
  );
}
