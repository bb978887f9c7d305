import { OPERLOG_TEXT } from '../../../locales/operlog.zh-CN';

/** Business types are numbered as in the classic admin log (0 其它 … 9 清空数据); words pass through. */
export function businessTypeLabel(value: number | string | null): string {
  if (value === null || value === undefined || value === '') return '';
  const index = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (Number.isNaN(index)) return String(value);
  return OPERLOG_TEXT.businessTypes[index] ?? String(value);
}
