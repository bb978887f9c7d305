import { Switch } from 'antd';
import type { SystemPermission } from '@ecrf/core';
import { COMMON_TEXT } from '../../locales/common.zh-CN';
import { Denied, useAccess } from '../permission';

interface StatusSwitchProps {
  /** What the row is called: the switch is announced as 启用 <name>, on or off. */
  name: string;
  checked: boolean;
  /** A system permission; without it the switch is shown disabled with 权限不足，请联系管理员. */
  code?: SystemPermission;
  /** A study permission the page has decided. */
  allowed?: boolean;
  disabled?: boolean;
  loading?: boolean;
  onChange: (checked: boolean) => void;
}

/**
 * A row's 正常/停用 switch. It reads the spec's status words on itself, so the state is not told by colour alone,
 * and has a name of its own for screen readers and tests.
 */
export function StatusSwitch({ name, checked, code, allowed, disabled, loading, onChange }: StatusSwitchProps) {
  const { can } = useAccess();
  const permitted = (code === undefined || can(code)) && allowed !== false;
  const control = (
    <Switch
      aria-label={COMMON_TEXT.enableOf(name)}
      checkedChildren={COMMON_TEXT.statusNormal}
      unCheckedChildren={COMMON_TEXT.statusDisabled}
      checked={checked}
      loading={loading}
      disabled={!permitted || disabled}
      onChange={permitted ? onChange : undefined}
      style={permitted ? undefined : { pointerEvents: 'none' }}
    />
  );
  if (permitted) return control;
  return <Denied>{control}</Denied>;
}
