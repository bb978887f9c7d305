import { Button, type ButtonProps } from 'antd';
import { Denied } from '../../../components/permission';

/**
 * A button guarded by the caller's study role (platform §6, second guard style): shown but
 * disabled, with 权限不足，请联系管理员, when `allowed` is false. AuthButton does the same for
 * system permissions; study buttons depend on the study, so the page passes the decision in.
 */
export function StudyAuthButton({ allowed, ...props }: ButtonProps & { allowed: boolean }) {
  if (allowed) return <Button {...props} />;
  return (
    <Denied>
      <Button {...props} disabled onClick={undefined} style={{ ...props.style, pointerEvents: 'none' }} />
    </Denied>
  );
}
