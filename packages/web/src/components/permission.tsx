import { useMemo, type ReactNode } from 'react';
import { Button, Popconfirm, Switch, Tooltip, type ButtonProps, type SwitchProps } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { MSG, type SystemPermission } from '@ecrf/core';
import { createAccess } from '../access';
import { COMMON_TEXT } from '../locales/common.zh-CN';
import { useSession } from '../stores/session.store';

export function useAccess(): { can: (code: SystemPermission) => boolean } {
  const buttonPermissions = useSession((s) => s.buttonPermissions);
  const permissions = useSession((s) => s.permissions);
  return useMemo(() => createAccess({ buttonPermissions, permissions }), [buttonPermissions, permissions]);
}

/** Hides its children unless the user holds `code` (platform §6, first guard style). */
export function Auth({
  code,
  children,
  fallback = null,
}: {
  code: SystemPermission;
  children: ReactNode;
  fallback?: ReactNode;
}) {
  return <>{useAccess().can(code) ? children : fallback}</>;
}

/** A control denied to the user (platform §6, second style), with 权限不足，请联系管理员 on hover. */
export function Denied({ children }: { children: ReactNode }) {
  return (
    <Tooltip title={MSG.permissionTooltip}>
      {/* A disabled control fires no mouse events; the wrapper lets the tooltip still show. */}
      <span style={{ display: 'inline-block', cursor: 'not-allowed' }}>{children}</span>
    </Tooltip>
  );
}

/** A button that stays visible but disabled, with 权限不足，请联系管理员, when denied (second style). */
export function AuthButton({ code, ...props }: ButtonProps & { code: SystemPermission }) {
  if (useAccess().can(code)) return <Button {...props} />;
  return (
    <Denied>
      <Button {...props} disabled onClick={undefined} style={{ ...props.style, pointerEvents: 'none' }} />
    </Denied>
  );
}

/** 新增 above a list: the primary button with the plus, under the same rule as AuthButton. */
export function AuthAddButton({ code, onClick }: { code: SystemPermission; onClick: () => void }) {
  return (
    <AuthButton code={code} type="primary" icon={<PlusOutlined aria-hidden />} onClick={onClick}>
      {COMMON_TEXT.add}
    </AuthButton>
  );
}

/** A status switch under the same rule as AuthButton. */
export function AuthSwitch({ code, ...props }: SwitchProps & { code: SystemPermission }) {
  if (useAccess().can(code)) return <Switch {...props} />;
  return (
    <Denied>
      <Switch {...props} disabled onChange={undefined} style={{ ...props.style, pointerEvents: 'none' }} />
    </Denied>
  );
}

/**
 * A row's 删除 link: asks for confirmation when the user holds the permission, and is shown
 * disabled with the 权限不足 tooltip when not (the server refuses it either way).
 */
export function AuthRemoveButton({
  code,
  title,
  label = COMMON_TEXT.remove,
  onConfirm,
}: {
  code: SystemPermission;
  title: ReactNode;
  /** The link's words (删除 by default). */
  label?: string;
  onConfirm: () => Promise<unknown>;
}) {
  return (
    <Auth
      code={code}
      fallback={
        <AuthButton code={code} type="link" size="small" danger>
          {label}
        </AuthButton>
      }
    >
      <Popconfirm title={title} onConfirm={() => onConfirm().catch(() => undefined)}>
        <Button type="link" size="small" danger>
          {label}
        </Button>
      </Popconfirm>
    </Auth>
  );
}
