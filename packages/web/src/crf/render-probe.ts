import { createContext, useContext } from 'react';

/**
 * Counts widget renders in tests and benchmarks: a keystroke must re-render the changed item, not
 * the form. Without a provider (the app) this is a no-op.
 */
export type RenderProbe = (key: string) => void;

export const RenderProbeContext = createContext<RenderProbe | null>(null);

export function useRenderProbe(key: string) {
  const probe = useContext(RenderProbeContext);
  probe?.(key);
}
