import type { QueryKey } from '@tanstack/react-query';
import { STATUS, type SystemPermission } from '@ecrf/core';
import { StatusSwitch, useListMutation, type PageColumn } from '../../components/table-page';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { STATUS_OPTIONS } from './sys-shared';

interface StatusColumnOptions<T> {
  /** The permission that may switch a row. */
  code: SystemPermission;
  idOf: (row: T) => number;
  /** What the row is called (the switch is announced as 启用 <name>). */
  nameOf: (row: T) => string;
  /** Rows whose switch is off limits even with the permission (one's own account). */
  fixed?: (row: T) => boolean;
  changeStatus: (id: number, status: number) => Promise<{ msg: string }>;
  /** The lists the change shows in. */
  invalidate: readonly QueryKey[];
}

/**
 * 状态 of a system list (roles, users): a filter of the search form, and each row's 正常/停用 switch, which saves at
 * once and spins while its own row saves.
 */
export function useStatusColumn<T>({
  code,
  idOf,
  nameOf,
  fixed,
  changeStatus,
  invalidate,
}: StatusColumnOptions<T>): PageColumn<T> {
  const change = useListMutation({
    mutationFn: ({ id, status }: { id: number; status: number }) => changeStatus(id, status),
    invalidate,
  });
  return {
    title: COMMON_TEXT.status,
    dataIndex: 'status',
    kind: 'status',
    width: 80,
    search: { options: STATUS_OPTIONS, width: 120 },
    render: (status: number, row: T) => (
      <StatusSwitch
        code={code}
        name={nameOf(row)}
        checked={status === STATUS.normal}
        disabled={fixed?.(row)}
        loading={change.isPending && change.variables?.id === idOf(row)}
        onChange={(checked) => change.mutate({ id: idOf(row), status: checked ? STATUS.normal : STATUS.disabled })}
      />
    ),
  };
}
