import type { ReactElement, ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { AntProviders } from '../components/ant-providers';

/** Renders with the providers every page relies on: antd as the app sets it up and a fresh query cache. */
export function renderWithProviders(ui: ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <AntProviders>
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    </AntProviders>
  );
  return render(ui, { wrapper });
}
