/**
 * Units as printed on lab reports, made one spelling each: `10*9/L`, `10^9/L`, `×10⁹/L` and `10-9/L` are all
 * `10^9/L`; `mmo1/L` (a font's l read as 1) is `mmol/L`; `umol/L` and `µmol/L` are `μmol/L`.
 */
export function normaliseUnit(text: string): string {
  const t = text.normalize('NFKC').replace(/\s+/g, '');
  if (!t) return '';
  return t
    .replace(/^[×xX*]?10[*^'`·-]?(\d{1,2})\/l$/i, '10^$1/L')
    .replace(/^[μµu](mol|g)\//, 'μ$1/')
    .replace(/^mmo[1lI]\/[lL1]$/, 'mmol/L')
    .replace(/\/l$/, '/L');
}
