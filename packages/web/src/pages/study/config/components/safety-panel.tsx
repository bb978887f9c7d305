import { useQuery } from '@tanstack/react-query';
import { Descriptions } from 'antd';
import { queryKeys } from '../../../../api/query-keys';
import { safetyApi } from '../../../../api/safety.api';
import { crfApi, type Study } from '../../../../api/study.api';
import { AuthSwitch } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { SAFETY_TEXT as t } from '../../../../locales/safety.zh-CN';
import { Section } from './section';

/**
 * 项目配置 · 不良事件 (issue 37): the AE module's switch. The first time on, the server makes the AE log form (不良事件记录)
 * and its stage; a serious event saved in it starts the 24-hour clock. Off stops new clocks only.
 */
export function SafetyPanel({ study }: { study: Study }) {
  const module = useQuery({
    queryKey: queryKeys.safety.module(study.id),
    queryFn: () => safetyApi.module(study.id).then((res) => res.data),
  });
  const aeCrfId = module.data?.aeCrfId ?? null;
  const forms = useQuery({
    queryKey: queryKeys.crf.options(study.id),
    enabled: aeCrfId !== null,
    queryFn: () => crfApi.options(study.id).then((res) => res.data),
  });
  const save = useListMutation({
    mutationFn: (enabled: boolean) => safetyApi.setModule(study.id, enabled),
    // The first switch on adds a form and a stage: the form and stage lists read again.
    invalidate: [queryKeys.safety.all(), queryKeys.crf.all(), queryKeys.crfStage.all()],
  });
  const on = module.data?.enabled ?? false;
  const aeForm = forms.data?.find((form) => form.id === aeCrfId);
  return (
    <Section title={t.tab} hint={t.moduleHint}>
      <AuthSwitch
        code="study:config"
        aria-label={t.moduleSwitch}
        checked={on}
        loading={module.isLoading || save.isPending}
        onChange={(next) => save.mutate(next)}
      />
      <span style={{ marginInlineStart: 8 }}>{t.moduleSwitch}</span>
      {on && aeForm && (
        <Descriptions size="small" column={1} style={{ marginTop: 16, maxWidth: 720 }}>
          <Descriptions.Item label={t.aeForm}>{aeForm.title}</Descriptions.Item>
        </Descriptions>
      )}
    </Section>
  );
}
