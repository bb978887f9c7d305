import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Switch } from 'antd';
import { doubleEntryApi } from '../../../../api/double-entry.api';
import { useAccess } from '../../../../components/permission';
import { DOUBLE_ENTRY_TEXT } from '../../../../locales/double-entry.zh-CN';

const formsKey = (studyId: number) => ['double-entry', 'forms', studyId] as const;

/**
 * 双份录入 (issue 37) on the CRF list: whether a form is typed twice and reconciled. Set by whoever manages the
 * study's CRFs (CRF管理), as the server requires; read-only for everyone else.
 */
export function DoubleEntrySwitch({ studyId, crfId, title }: { studyId: number; crfId: number; title: string }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const may = useAccess().can('study:crf');
  const forms = useQuery({
    queryKey: formsKey(studyId),
    queryFn: async () => (await doubleEntryApi.forms(studyId)).data,
  });
  const change = useMutation({
    mutationFn: (on: boolean) => doubleEntryApi.configure(studyId, crfId, on),
    onSuccess: () => {
      void message.success(DOUBLE_ENTRY_TEXT.configured);
      void queryClient.invalidateQueries({ queryKey: ['double-entry'] });
    },
  });
  return (
    <Switch
      size="small"
      aria-label={`${title}${DOUBLE_ENTRY_TEXT.doubleEntry}`}
      checked={Boolean(forms.data?.includes(crfId))}
      loading={forms.isLoading || change.isPending}
      disabled={!may}
      onChange={(on) => change.mutate(on)}
    />
  );
}
