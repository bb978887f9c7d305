import type { ReactNode } from 'react';
import { App, Button, Dropdown, Popconfirm, Space, Tooltip, type MenuProps } from 'antd';
import { DownOutlined } from '@ant-design/icons';
import { MSG, type SystemPermission } from '@ecrf/core';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { Denied, useAccess } from '../permission';

/** One thing a person can do with a row: a link in the row, or an entry of its 更多 menu. */
export interface RowAction<T> {
  key: string;
  label: string;
  /** A system permission (platform §6): without it the action stays visible, disabled, with 权限不足. */
  code?: SystemPermission;
  /** A study permission the page has decided (the rule of StudyAuthButton). */
  allowed?: boolean;
  /** Not offered on this row at all (one's own account has no 删除). */
  hidden?: (row: T) => boolean;
  /** Offered but not possible now (the first stage cannot move up). */
  disabled?: (row: T) => boolean;
  danger?: boolean;
  /** An icon-only link: the label becomes its tooltip and, with the row's name, its accessible name. */
  icon?: ReactNode;
  /** What the row is called, for the accessible name of icon-only links (上移 基线期). */
  rowName?: (row: T) => string;
  /** Asks first: a popover on a link in the row, a dialog for an entry of 更多. */
  confirm?: (row: T) => { title: ReactNode; description?: ReactNode };
  /** A page opened in a new tab (患者端预览): the link is a real link, for the browser's own link handling. */
  href?: (row: T) => string;
  /** A choice to make first (导出 as JSON, Excel …): a drop-down on the link, a submenu in 更多. */
  choices?: ReadonlyArray<{ key: string; label: string }>;
  /** Runs the action; `choice` is the key of the choice made, for an action with choices. */
  onClick: (row: T, choice?: string) => unknown;
}

/** Links shown in a row by default; with more actions the last place becomes 更多. */
export const INLINE_ACTIONS = 3;

/** Which actions stay in the row and which go into 更多: decided per table, so every row lines up. */
export function splitActions<A>(actions: readonly A[], inline = INLINE_ACTIONS): { shown: A[]; more: A[] } {
  const keep = actions.length > inline ? Math.max(inline - 1, 0) : actions.length;
  return { shown: actions.slice(0, keep), more: actions.slice(keep) };
}

const CJK = /[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]/;

/** Estimated width of a text at 14 px: a CJK character is one em, others about 0.62 em. */
export function textWidth(text: string, fontSize = 14): number {
  let width = 0;
  for (const ch of text) width += CJK.test(ch) ? fontSize : fontSize * 0.62;
  return Math.ceil(width);
}

/** antd's small link button: 7 px padding and a 1 px border each side; an icon adds itself and a gap. */
const BUTTON_CHROME = 16;
const ICON = 14 + 8;
const ICON_ONLY_BUTTON = 24;
/** The small down arrow after 更多 and after a link with choices. */
const DROP_ICON = 14;
/** A middle-size table cell's inline padding, both sides, plus a little room for other fonts. */
const CELL_CHROME = 16 + 8;

/**
 * The width an actions column needs so that its links sit on one line (or, `vertical`, so that the widest link of
 * the stack fits).
 */
export function rowActionsWidth<T>(
  actions: readonly RowAction<T>[],
  inline = INLINE_ACTIONS,
  vertical = false,
): number {
  const { shown, more } = splitActions(actions, inline);
  const widths = shown.map((action) =>
    action.icon && action.rowName
      ? ICON_ONLY_BUTTON
      : textWidth(action.label) + BUTTON_CHROME + (action.icon ? ICON : 0) + (action.choices ? DROP_ICON : 0),
  );
  if (more.length > 0) widths.push(textWidth(COMMON_TEXT.more) + BUTTON_CHROME + DROP_ICON);
  const links = vertical ? Math.max(0, ...widths) : widths.reduce((sum, width) => sum + width, 0);
  return Math.max(links + CELL_CHROME, textWidth(COMMON_TEXT.actions) + CELL_CHROME);
}

interface RowActionsProps<T> {
  row: T;
  actions: readonly RowAction<T>[];
  /** Places for links (3 by default): with more actions than places, the last place becomes 更多. */
  inline?: number;
  /** Links stacked, for a narrow column (phones). */
  vertical?: boolean;
}

/**
 * A row's actions: links in at most `inline` places, the rest in a 更多 menu. Each keeps its permission rule (denied:
 * visible, disabled, 权限不足，请联系管理员) and its confirmation.
 */
export function RowActions<T>({ row, actions, inline = INLINE_ACTIONS, vertical = false }: RowActionsProps<T>) {
  const { can } = useAccess();
  const { modal } = App.useApp();
  const permitted = (action: RowAction<T>) =>
    (action.code === undefined || can(action.code)) && action.allowed !== false;
  // Split by the table's actions, not the row's, so that every row keeps its links in the same places.
  const { shown, more } = splitActions(actions, inline);
  const offered = (action: RowAction<T>) => !action.hidden?.(row);

  const run = (action: RowAction<T>) => {
    const ask = action.confirm?.(row);
    if (!ask) return void action.onClick(row);
    modal.confirm({
      title: ask.title,
      content: ask.description,
      okText: COMMON_TEXT.ok,
      cancelText: COMMON_TEXT.cancel,
      okButtonProps: { danger: action.danger },
      // The request wrapper has shown why a refused change failed; the dialog closes either way.
      onOk: () => Promise.resolve(action.onClick(row)).catch(() => undefined),
    });
  };

  const dropIcon = <DownOutlined aria-hidden style={{ fontSize: 10 }} />;

  const link = (action: RowAction<T>) => {
    const iconOnly = Boolean(action.icon && action.rowName);
    if (action.choices && permitted(action) && !action.disabled?.(row)) {
      return (
        <Dropdown
          key={action.key}
          trigger={['click']}
          menu={{
            items: action.choices.map((choice) => ({ key: choice.key, label: choice.label })),
            onClick: ({ key }) => void action.onClick(row, key),
          }}
        >
          <Button type="link" size="small" danger={action.danger} icon={action.icon}>
            {action.label}
            {dropIcon}
          </Button>
        </Dropdown>
      );
    }
    const button = (
      <Button
        key={action.key}
        type="link"
        size="small"
        danger={action.danger}
        icon={action.icon}
        aria-label={iconOnly ? `${action.label} ${action.rowName!(row)}` : undefined}
        href={action.href?.(row)}
        target={action.href ? '_blank' : undefined}
        disabled={!permitted(action) || action.disabled?.(row)}
        style={permitted(action) ? undefined : { pointerEvents: 'none' }}
        onClick={action.confirm ? undefined : () => void action.onClick(row)}
      >
        {iconOnly ? null : action.label}
      </Button>
    );
    if (!permitted(action)) return <Denied key={action.key}>{button}</Denied>;
    if (action.confirm && !action.disabled?.(row)) {
      const ask = action.confirm(row);
      return (
        <Popconfirm
          key={action.key}
          title={ask.title}
          description={ask.description}
          okButtonProps={{ danger: action.danger }}
          onConfirm={() => Promise.resolve(action.onClick(row)).catch(() => undefined)}
        >
          {button}
        </Popconfirm>
      );
    }
    return iconOnly ? (
      <Tooltip key={action.key} title={action.label}>
        {button}
      </Tooltip>
    ) : (
      button
    );
  };

  const menuActions = more.filter(offered);
  const items: MenuProps['items'] = menuActions.map((action) => ({
    key: action.key,
    children:
      action.choices && permitted(action)
        ? action.choices.map((choice) => ({ key: `${action.key}:${choice.key}`, label: choice.label }))
        : undefined,
    danger: action.danger,
    disabled: !permitted(action) || action.disabled?.(row),
    label: permitted(action) ? (
      action.label
    ) : (
      <Tooltip title={MSG.permissionTooltip} placement="left">
        <span>{action.label}</span>
      </Tooltip>
    ),
  }));

  return (
    <Space
      size={0}
      wrap={false}
      orientation={vertical ? 'vertical' : 'horizontal'}
      align={vertical ? 'start' : undefined}
      className="row-actions"
    >
      {shown.filter(offered).map(link)}
      {menuActions.length > 0 && (
        <Dropdown
          trigger={['click']}
          menu={{
            items,
            onClick: ({ keyPath }) => {
              // A choice of a submenu comes as [<action>:<choice>, <action>].
              const action = menuActions.find((candidate) => candidate.key === keyPath[keyPath.length - 1]);
              if (!action || !permitted(action)) return;
              if (action.choices) return void action.onClick(row, keyPath[0]!.slice(action.key.length + 1));
              run(action);
            },
          }}
        >
          <Button type="link" size="small">
            {COMMON_TEXT.more}
            {dropIcon}
          </Button>
        </Dropdown>
      )}
    </Space>
  );
}
