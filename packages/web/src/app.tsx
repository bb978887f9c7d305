import { lazy, Suspense, useEffect, useState } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp } from 'antd';
import { RouterProvider } from 'react-router/dom';
import { MESSAGE_SECONDS, setNavigator, setNotifier } from './api/request';
import { AntProviders } from './components/ant-providers';
import { createAppRouter } from './router';
import { useSession } from './stores/session.store';

// The realtime client (socket.io) loads once someone is signed in: the sign-in page does without it.
const RealtimeBridge = lazy(() => import('./realtime/realtime-bridge').then((m) => ({ default: m.RealtimeBridge })));

function SignedInRealtime() {
  const signedIn = useSession((s) => Boolean(s.token) && !s.setPasswordMust);
  return signedIn ? (
    <Suspense fallback={null}>
      <RealtimeBridge />
    </Suspense>
  ) : null;
}

type AppRouter = ReturnType<typeof createAppRouter>;

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // The request wrapper has already shown why a call failed; retrying would repeat the message.
      queries: { retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

/** Hands the request wrapper the themed message API and the router's navigate. */
function RequestBridge({ router }: { router: AppRouter }) {
  const { message } = AntApp.useApp();
  useEffect(() => {
    setNotifier({ error: (text) => void message.error(text, MESSAGE_SECONDS) });
    setNavigator((path) => void router.navigate(path));
  }, [message, router]);
  return null;
}

export function App() {
  const [router] = useState(createAppRouter);
  const [queryClient] = useState(createQueryClient);

  return (
    <AntProviders>
      <RequestBridge router={router} />
      <QueryClientProvider client={queryClient}>
        <SignedInRealtime />
        <RouterProvider router={router} />
      </QueryClientProvider>
    </AntProviders>
  );
}
