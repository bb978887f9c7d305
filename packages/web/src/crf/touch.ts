import { useSyncExternalStore } from 'react';

/**
 * Whether the device has a touch screen (any coarse pointer: phones, ward tablets, touch laptops).
 * Widgets use it to keep the on-screen keyboard away from pickers and to offer the camera.
 */
const COARSE = '(any-pointer: coarse)';

function query(): MediaQueryList | null {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(COARSE) : null;
}

function subscribe(onChange: () => void) {
  const list = query();
  list?.addEventListener('change', onChange);
  return () => list?.removeEventListener('change', onChange);
}

const snapshot = () => query()?.matches ?? false;

export function useTouchScreen(): boolean {
  return useSyncExternalStore(subscribe, snapshot, () => false);
}
