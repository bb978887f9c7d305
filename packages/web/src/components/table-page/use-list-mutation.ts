import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { App } from 'antd';
import { MSG } from '@ecrf/core';

interface ListMutationOptions<V, R extends { msg: string }> {
  mutationFn: (variables: V) => Promise<R>;
  /** The key prefixes whose lists show what changed. */
  invalidate: readonly QueryKey[];
  /** After the message and the refresh: close a dialog, clear a selection. */
  onSuccess?: (result: R, variables: V) => void;
  onError?: (error: Error, variables: V) => void;
}

/**
 * A change made from a list (save, status, delete): the server's message as a success (操作成功 when it sends
 * none) and a refresh of the lists it touches. A failure has already been shown by the request wrapper.
 */
export function useListMutation<V, R extends { msg: string }>({
  mutationFn,
  invalidate,
  onSuccess,
  onError,
}: ListMutationOptions<V, R>) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: (result, variables) => {
      void message.success(result.msg || MSG.ok);
      for (const queryKey of invalidate) void queryClient.invalidateQueries({ queryKey });
      onSuccess?.(result, variables);
    },
    onError,
  });
}

interface SaveMutationOptions<B, R extends { msg: string }> extends Omit<ListMutationOptions<B, R>, 'mutationFn'> {
  /** True when the dialog edits an existing row (update), false when it adds one (create). */
  editing: boolean;
  create: (body: B) => Promise<R>;
  update: (body: B) => Promise<R>;
}

/** The save of an add/edit dialog: create or update, then the server's message and the lists refreshed. */
export function useSaveMutation<B, R extends { msg: string }>({
  editing,
  create,
  update,
  ...rest
}: SaveMutationOptions<B, R>) {
  return useListMutation<B, R>({ ...rest, mutationFn: (body) => (editing ? update(body) : create(body)) });
}
