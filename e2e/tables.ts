import type { Locator, Page } from 'playwright-core';

/**
 * What a person cannot read in the list tables on screen: a header cell that ends behind the fixed 操作 column
 * (the table is wider than the page, so a column is cut at the edge), or a cell whose content spills out of it
 * (a switch cut in half, a date cut to "20", links running over). Cut text columns (ellipsis, full text in a
 * tooltip) are not counted. An empty list means everything fits.
 */
export async function cutTableCells(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const visible = (el: Element) => {
      const rect = el.getBoundingClientRect();
      return rect.width > 0 && rect.height > 0;
    };
    const isFixedEnd = (cell: Element) => /-cell-fix-(end|right)\b/.test(cell.className);
    const text = (cell: Element) => (cell.textContent ?? '').trim().slice(0, 24);
    const ownTables = [...document.querySelectorAll('.ant-table-wrapper')].filter(
      // The list tables of the page, not the tables inside a dialog or a drawer.
      (table) => visible(table) && !table.closest('.ant-modal, .ant-drawer'),
    );
    for (const table of ownTables) {
      const name = table.closest('.page-card')?.querySelector('.page-title')?.textContent?.trim() ?? 'table';
      const headers = [...table.querySelectorAll('thead th')].filter(
        (th) => visible(th) && !th.classList.contains('ant-table-cell-scrollbar'),
      );
      const fixed = headers.filter(isFixedEnd);
      const fixedLeft = fixed.length > 0 ? Math.min(...fixed.map((th) => th.getBoundingClientRect().left)) : Infinity;
      const container = table.querySelector('.ant-table-content, .ant-table-body') ?? table;
      const left = container.getBoundingClientRect().left;
      for (const th of headers) {
        if (isFixedEnd(th)) continue;
        const rect = th.getBoundingClientRect();
        if (rect.right > fixedLeft + 1) {
          problems.push(
            `${name}: 「${text(th)}」 ends at ${Math.round(rect.right)}, behind 操作 at ${Math.round(fixedLeft)}`,
          );
        } else if (rect.left < left - 1) {
          problems.push(
            `${name}: 「${text(th)}」 starts at ${Math.round(rect.left)}, left of the table at ${Math.round(left)}`,
          );
        }
      }
      for (const td of table.querySelectorAll('tbody td')) {
        if (!visible(td) || td.classList.contains('ant-table-cell-ellipsis')) continue;
        const cell = td as HTMLElement;
        if (cell.scrollWidth > cell.clientWidth + 1) {
          problems.push(`${name}: cell 「${text(td)}」 needs ${cell.scrollWidth}px, has ${cell.clientWidth}px`);
        }
      }
    }
    return problems;
  });
}

/**
 * Picks an entry of a row's 更多 menu (the row's secondary actions). Waits for the menu to finish opening: a
 * click during its animation can miss on a loaded machine.
 */
export async function pickMore(page: Page, row: Locator, item: string) {
  const entry = await openMore(page, row, item);
  await entry.click();
}

/** Opens a row's 更多 menu and answers the entry named `item` (to be checked or clicked). */
export async function openMore(page: Page, row: Locator, item: string): Promise<Locator> {
  await row.getByRole('button', { name: '更多' }).click();
  const menu = page.locator('.ant-dropdown:visible');
  await menu.waitFor();
  await page.waitForFunction(
    () => !document.querySelector('.ant-dropdown [class*="-appear-active"], .ant-slide-up-appear, .ant-slide-up-enter'),
  );
  return menu.getByRole('menuitem', { name: item, exact: true });
}

/** Closes an open 更多 menu without choosing. */
export async function closeMore(page: Page) {
  await page.keyboard.press('Escape');
  await page.locator('.ant-dropdown:visible').waitFor({ state: 'hidden' });
}
