import { SoundOutlined } from '@ant-design/icons';
import { Switch } from 'antd';
import { REALTIME_TEXT } from '../locales/realtime.zh-CN';
import { useSession } from '../stores/session.store';
import { browserSpeaker } from './speech';
import { useSpeechSetting } from './speech-setting';

/** 语音播报 in the personal menu: new notices are also spoken (zh-CN). */
export function SpeechSwitch() {
  const userId = useSession((s) => s.user?.userId ?? null);
  const on = useSpeechSetting((s) => s.isOn(userId));
  const set = useSpeechSetting((s) => s.set);
  if (userId === null || browserSpeaker() === null) return null;
  return (
    <label
      className="speech-switch"
      style={{ display: 'flex', alignItems: 'center', gap: 8, padding: '4px 15px', cursor: 'pointer' }}
    >
      <SoundOutlined aria-hidden />
      <span style={{ flex: 1 }}>{REALTIME_TEXT.speech}</span>
      <Switch size="small" checked={on} aria-label={REALTIME_TEXT.speech} onChange={(next) => set(userId, next)} />
    </label>
  );
}
