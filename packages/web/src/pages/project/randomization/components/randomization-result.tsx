import { Descriptions, Tag } from 'antd';
import type { SubjectRandomization } from '../../../../api/randomization.api';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { TestRandomizationTag } from '../../../../components/test-data-tag';

const t = RANDOMIZATION_TEXT;

/** 已紧急揭盲: the permanent mark of a patient whose arm was disclosed in an emergency. */
export function UnblindedMark() {
  return (
    <Tag color="red" className="rand-unblinded-mark">
      {t.emergencyMark}
    </Tag>
  );
}

/** The arm as the user may see it: its label and code, or only the blinded kit code. */
export function armText(r: Pick<SubjectRandomization, 'armVisible' | 'armLabel' | 'arm' | 'kitCode'>): string {
  return r.armVisible && r.armLabel ? `${r.armLabel}（${r.arm}）` : t.blindedCode(r.kitCode);
}

/** One patient's randomization: number, time, stratum and the arm or blinded code. */
export function RandomizationResultView({ result }: { result: SubjectRandomization }) {
  return (
    <Descriptions size="small" bordered column={1} className="rand-result">
      <Descriptions.Item label={t.randomizationNo}>
        <strong className="rand-code">{result.randomizationNo}</strong> <TestRandomizationTag test={result.test} />
        {result.emergencyUnblinded && <UnblindedMark />}
      </Descriptions.Item>
      <Descriptions.Item label={t.randomizationTime}>{formatDate(result.randomizationTime)}</Descriptions.Item>
      {result.stratum !== '' && <Descriptions.Item label={t.stratum}>{result.stratumLabel}</Descriptions.Item>}
      <Descriptions.Item label={result.armVisible ? t.arm : t.kitCode}>
        <span className="rand-code">{result.armVisible ? armText(result) : result.kitCode}</span>
      </Descriptions.Item>
      {result.armVisible && result.blinded && (
        <Descriptions.Item label={t.kitCode}>
          <span className="rand-code">{result.kitCode}</span>
        </Descriptions.Item>
      )}
    </Descriptions>
  );
}
