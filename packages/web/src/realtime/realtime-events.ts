import { useEffect, useRef } from 'react';
import type { PushName, Pushes } from './realtime-client';

type Listener<E extends PushName> = (payload: Pushes[E]) => void;

const listeners = new Map<PushName, Set<Listener<any>>>();

/** Hands a push to the components listening for it (the CRF page, the task drawer). */
export function dispatchPush<E extends PushName>(event: E, payload: Pushes[E]): void {
  for (const listener of listeners.get(event) ?? []) listener(payload);
}

export function onPush<E extends PushName>(event: E, listener: Listener<E>): () => void {
  let set = listeners.get(event);
  if (!set) listeners.set(event, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** Calls `handler` with every push of `event` while the component is mounted (the latest handler is used). */
export function useRealtimeEvent<E extends PushName>(event: E, handler: Listener<E>): void {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => onPush(event, (payload) => latest.current(payload)), [event]);
}
