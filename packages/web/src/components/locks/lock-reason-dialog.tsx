import { LOCK_TEXT } from '../../locales/lock.zh-CN';
import { ReasonDialog } from '../reason-dialog';

/** Asks why a lock is set or lifted: the reason goes on the audit trail with it. */
export function LockReasonDialog({
  open,
  title,
  unlocking,
  pending,
  onSubmit,
  onClose,
}: {
  open: boolean;
  title: string;
  unlocking: boolean;
  pending: boolean;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}) {
  return (
    <ReasonDialog
      open={open}
      title={title}
      hint={unlocking ? LOCK_TEXT.unlockHint : LOCK_TEXT.lockHint}
      label={LOCK_TEXT.reason}
      requiredMessage={LOCK_TEXT.reasonRequired}
      danger={!unlocking}
      pending={pending}
      onSubmit={onSubmit}
      onClose={onClose}
    />
  );
}
