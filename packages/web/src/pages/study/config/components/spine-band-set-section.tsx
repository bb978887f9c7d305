import { Radio } from 'antd';
import { SPINE_BAND_SETS, spineBandSetOf, type SpineBandSet } from '@ecrf/core';
import { studyApi, type Study } from '../../../../api/study.api';
import { queryKeys } from '../../../../api/query-keys';
import { useAccess } from '../../../../components/permission';
import { useListMutation } from '../../../../components/table-page';
import { STUDY_CONFIG_TEXT } from '../../../../locales/study-config.zh-CN';
import { Section } from './section';

/**
 * 脊柱诊断分级标准: the bands the manual spine measures of this study's forms are diagnosed by (docs/spine-tools.md).
 * A choice is saved at once, audited on the study's chain like every setting; records already saved keep the
 * diagnosis they were saved with until their measurement is edited.
 */
export function SpineBandSetSection({ study }: { study: Study }) {
  const { can } = useAccess();
  const save = useListMutation({
    mutationFn: (spineBandSet: SpineBandSet) => studyApi.update({ id: study.id, spineBandSet }),
    invalidate: [queryKeys.study.all()],
  });
  return (
    <Section title={STUDY_CONFIG_TEXT.spineBandSet} hint={STUDY_CONFIG_TEXT.spineBandSetHint}>
      <Radio.Group
        aria-label={STUDY_CONFIG_TEXT.spineBandSet}
        value={spineBandSetOf(study.spineBandSet)}
        disabled={!can('study:config') || save.isPending}
        onChange={(e) => save.mutate(e.target.value as SpineBandSet)}
        options={SPINE_BAND_SETS.map((value) => ({ value, label: STUDY_CONFIG_TEXT.spineBandSets[value] }))}
      />
    </Section>
  );
}
