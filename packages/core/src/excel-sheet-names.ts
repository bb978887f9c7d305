/** Characters Excel refuses in a worksheet name. */
const FORBIDDEN = /[:\\/?*[\]]/g;
/** Excel's longest worksheet name. */
export const EXCEL_SHEET_NAME_MAX = 31;

function clean(text: string, max: number): string {
  // Quotes and spaces come off the ends together: trimming after the quotes could uncover another quote
  // (`' '基` → `'基`), and Excel refuses a quote at either end.
  return text
    .replace(FORBIDDEN, '_')
    .slice(0, max)
    .replace(/^[\s']+|[\s']+$/g, '');
}

/**
 * One worksheet name per title, in order, that Excel accepts: no : \ / ? * [ ], no quote at either end, at most
 * 31 characters, and unique ignoring case among themselves and `reserved` (a workbook's own sheets such as
 * 数据字典). A name already taken gets (2), (3)… within the 31 characters; a title with nothing left takes
 * `fallback(index)`. Every workbook we write and read back names its form sheets with this, so the same
 * forms in the same order always get the same names.
 */
export function excelSheetNames(
  titles: readonly string[],
  options: { reserved?: readonly string[]; fallback?: (index: number) => string } = {},
): string[] {
  const taken = new Set((options.reserved ?? []).map((name) => name.toLowerCase()));
  return titles.map((title, index) => {
    const base = clean(title, EXCEL_SHEET_NAME_MAX) || clean(options.fallback?.(index) ?? '表单', EXCEL_SHEET_NAME_MAX);
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n += 1) {
      const suffix = `(${n})`;
      name = clean(base, EXCEL_SHEET_NAME_MAX - suffix.length) + suffix;
    }
    taken.add(name.toLowerCase());
    return name;
  });
}
