import { Button, Tooltip, type ButtonProps } from 'antd';
import { MSG } from '@ecrf/core';

/**
 * A button guarded by the caller's study role (platform §6, second guard style): shown but
 * disabled, with 权限不足，请联系管理员, when `allowed` is false. AuthButton does the same for
 * system permissions; study buttons depend on the study, so the page passes the decision in.
 */
export function StudyAuthButton({ allowed, ...props }: ButtonProps & { allowed: boolean }) {
  if (allowed) return <Button {...props} />;
  return (
    <Tooltip title={MSG.permissionTooltip}>
      {/* A disabled control fires no mouse events; the wrapper lets the tooltip still show. */}
      <span style={{ display: 'inline-block', cursor: 'not-allowed' }}>
        <Button {...props} disabled onClick={undefined} style={{ ...props.style, pointerEvents: 'none' }} />
      </span>
    </Tooltip>
  );
}
