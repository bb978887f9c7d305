import type { MenuRow } from '../../../api/system.api';

/** Menu rows may carry their display fields inside meta or flat; read either. */
export function menuTitle(row: MenuRow): string {
  return row.meta?.title ?? row.title ?? row.code;
}

export function menuIconName(row: MenuRow): string | null {
  return row.meta?.icon ?? row.icon ?? null;
}

export function menuHidden(row: MenuRow): boolean {
  return Boolean(row.meta?.hidden ?? row.hidden);
}
