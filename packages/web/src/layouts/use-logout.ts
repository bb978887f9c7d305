import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { authApi } from '../api/auth.api';
import { useAppStore } from '../stores/app.store';
import { useSession } from '../stores/session.store';

/**
 * Ends the session: tells the server (the refresh token dies with it), then clears the session, local storage,
 * the tabs and the query cache whatever the server answered, and goes to `to` (platform §2: the root, which
 * sends a visitor to /login).
 */
export function useLogout() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const resetViews = useAppStore((s) => s.resetViews);
  const clearSession = useSession((s) => s.clear);
  return useCallback(
    async (to = '/') => {
      try {
        await authApi.logout(useSession.getState().refreshToken);
      } catch {
        // The session ends locally even when the server cannot be told (platform §2).
      }
      clearSession();
      resetViews();
      queryClient.clear();
      await navigate(to);
    },
    [clearSession, navigate, queryClient, resetViews],
  );
}
