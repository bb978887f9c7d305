import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { MSG } from '@ecrf/core';
import { lockApi, type LockBody } from '../../api/lock.api';
import { queryKeys } from '../../api/query-keys';

/** Sets or lifts a lock; every lock view and the lists that mark locks are read again. */
export function useLockChange(onDone: () => void) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: LockBody) => lockApi.change(body),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: queryKeys.lock.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.all() });
      onDone();
    },
  });
}
