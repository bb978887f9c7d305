import { useQuery } from '@tanstack/react-query';
import { baseApi, configValue } from '../api/base.api';
import { T } from '../locales/zh-CN';
import { useSession } from '../stores/session.store';
import { queryKeys } from '../api/query-keys';

/** SystemTitle from the system config (SHELL-31), or the default product title. */
export function useProductTitle(): string {
  const token = useSession((s) => s.token);
  const { data } = useQuery({
    queryKey: queryKeys.sysConfig.title(),
    queryFn: () => baseApi.sysConfig().then((res) => res.data),
    // The config call needs a token; before sign-in the default title is shown.
    enabled: Boolean(token),
    staleTime: 10 * 60 * 1000,
  });
  return configValue(data, 'SystemTitle') ?? T.productTitle;
}
