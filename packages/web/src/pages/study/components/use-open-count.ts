import { useState } from 'react';

/**
 * Counts how often a dialog has been opened. Keyed on it, a dialog's body mounts afresh at each
 * opening (a new form with its initial values) while a closing dialog keeps its instance and its
 * close animation. Resetting a kept form from an effect instead races with fast typing, and
 * clearing it on unmount loses the initial values under StrictMode's remount.
 */
export function useOpenCount(open: boolean): number {
  const [count, setCount] = useState(open ? 1 : 0);
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) setCount((n) => n + 1);
  }
  return count;
}
