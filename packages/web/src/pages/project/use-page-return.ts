import { useContext, useEffect, useRef } from 'react';
import { UNSAFE_DataRouterStateContext, useLocation } from 'react-router';

/**
 * Calls `onReturn` when a kept-alive page comes back into view. The patient list stays mounted
 * while a nurse fills forms on the CRF page; when she returns, its form progress must be read
 * again rather than shown as it was when she left.
 */
export function usePageReturn(onReturn: () => void) {
  // The live location of the app; a kept page's own location is the one it was opened with.
  const live = useContext(UNSAFE_DataRouterStateContext)?.location.pathname;
  const own = useLocation().pathname;
  const visible = live === undefined || live === own;
  const wasVisible = useRef(visible);
  useEffect(() => {
    if (visible && !wasVisible.current) onReturn();
    wasVisible.current = visible;
  }, [visible, onReturn]);
}
