import { Tag } from 'antd';
import { T } from '../../../../locales/zh-CN';

/** forms §3: repeat 1 is a single form, anything else repeatable (a table of records). */
export function RepeatTag({ repeat }: { repeat: number }) {
  return repeat === 1 ? (
    <Tag color="blue">{T.crfStage.repeatSingle}</Tag>
  ) : (
    <Tag color="purple">{T.crfStage.repeatMulti}</Tag>
  );
}
