import { useCallback } from 'react';
import { useLocation, useNavigate, type NavigateOptions, type To } from 'react-router';

/** Navigation that does nothing when asked for the current location (SHELL-05). */
export function useSafeNavigate(): (to: To, options?: NavigateOptions) => void {
  const navigate = useNavigate();
  const location = useLocation();
  return useCallback(
    (to: To, options?: NavigateOptions) => {
      const target = typeof to === 'string' ? to : `${to.pathname ?? location.pathname}${to.search ?? ''}`;
      if (target === `${location.pathname}${location.search}`) return;
      void navigate(to, options);
    },
    [navigate, location.pathname, location.search],
  );
}
