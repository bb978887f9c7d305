import { useCallback, useRef, useState } from 'react';
import { Drawer } from 'antd';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import type { FormItem } from '../crf-values';
import { locateItem } from '../locate-item';
import { ItemPanel, ItemSheet, type ItemPanelProps } from './item-panel';

const t = CRF_PAGE_TEXT;

/**
 * Without room beside the form, the item list is a drawer and each item opens its own sheet. An item located
 * from the drawer is scrolled to once the drawer has closed and given the focus back.
 */
export function useItemDrawers(items: readonly FormItem[]) {
  const [itemsOpen, setItemsOpen] = useState(false);
  const [sheetItem, setSheetItem] = useState<string | null>(null);
  const pendingLocate = useRef<FormItem | null>(null);

  const onLocate = useCallback(
    (item: FormItem) => {
      // From the item drawer: the form is scrolled once the drawer has closed and given the focus back.
      if (itemsOpen) {
        pendingLocate.current = item;
        setItemsOpen(false);
        return;
      }
      locateItem(item.name, item.name);
    },
    [itemsOpen],
  );
  const afterItemsOpenChange = (open: boolean) => {
    if (open || !pendingLocate.current) return;
    const item = pendingLocate.current;
    pendingLocate.current = null;
    locateItem(item.name, item.name);
  };
  const openSheet = useCallback((name: string) => setSheetItem(name), []);
  const sheet = sheetItem ? items.find((item) => item.name === sheetItem) : undefined;

  return {
    itemsOpen,
    openItems: () => setItemsOpen(true),
    closeItems: () => setItemsOpen(false),
    afterItemsOpenChange,
    onLocate,
    openSheet,
    sheet,
    closeSheet: () => setSheetItem(null),
  };
}

export interface ItemDrawersProps {
  drawers: ReturnType<typeof useItemDrawers>;
  phone: boolean;
  /** What the item list shows beside the form when there is room for it; the sheet shows one item's part of it. */
  panel: ItemPanelProps;
}

/** The item list's drawer and one item's sheet. */
export function ItemDrawers({ drawers, phone, panel }: ItemDrawersProps) {
  const { sheet } = drawers;
  const sheetDoubts = sheet ? panel.doubts.filter((d) => d.itemName === sheet.name || d.groupName === sheet.name) : [];
  return (
    <>
      <Drawer
        open={drawers.itemsOpen}
        placement="right"
        size={phone ? '100%' : 380}
        title={t.itemsToggle}
        onClose={drawers.closeItems}
        afterOpenChange={drawers.afterItemsOpenChange}
        rootClassName="crf-items-drawer"
        styles={{ body: { padding: 0 } }}
      >
        <ItemPanel {...panel} />
      </Drawer>
      <Drawer
        open={sheet !== undefined}
        placement="bottom"
        size="auto"
        title={sheet ? t.itemPanelOf(sheet.title) : ''}
        onClose={drawers.closeSheet}
        rootClassName="crf-item-sheet-drawer"
      >
        {sheet && (
          <ItemSheet
            item={sheet}
            recordId={panel.recordId}
            mark={panel.sdv[sheet.name]}
            doubts={sheetDoubts}
            sdvMode={panel.sdvMode}
            canSdv={panel.canSdv}
            sdvBusy={panel.sdvBusy}
            onHistory={panel.onHistory}
            onDoubts={panel.onDoubts}
            onSdv={panel.onSdv}
            commentCount={panel.commentCounts?.[sheet.name] ?? 0}
            onComments={panel.onComments}
          />
        )}
      </Drawer>
    </>
  );
}
