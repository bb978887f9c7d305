import { useSyncExternalStore } from 'react';

/**
 * The original names of stored files, by file key, as the server has named them in answers (form,
 * overview) and uploads. A stored value holds only the key (forms §3 keeps the value shapes), so
 * widgets look the name up here instead of showing the key.
 */
let names: ReadonlyMap<string, string> = new Map();
const listeners = new Set<() => void>();

export function rememberFileNames(entries: Readonly<Record<string, string>> | null | undefined): void {
  if (!entries) return;
  const fresh = Object.entries(entries).filter(([key, name]) => name && names.get(key) !== name);
  if (fresh.length === 0) return;
  names = new Map([...names, ...fresh]);
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const snapshot = () => names;

/** The names known so far; a component re-renders when new ones arrive. */
export function useFileNames(): ReadonlyMap<string, string> {
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}
