import { Tag } from 'antd';
import { CRF_STAGE_TEXT } from '../../../../locales/crf-stage.zh-CN';

/** forms §3: repeat 1 is a single form, anything else repeatable (a table of records). */
export function RepeatTag({ repeat }: { repeat: number }) {
  return repeat === 1 ? (
    <Tag color="blue">{CRF_STAGE_TEXT.repeatSingle}</Tag>
  ) : (
    <Tag color="purple">{CRF_STAGE_TEXT.repeatMulti}</Tag>
  );
}
