import { afterEach, describe, expect, it, vi } from 'vitest';
import { setNavigator, setNotifier, staticNotifier } from '../api/request';
import { useSession } from '../stores/session.store';
import { endRealtimeSession } from './realtime-bridge';
import { useSpeechSetting } from './speech-setting';

afterEach(() => {
  setNotifier(staticNotifier);
  setNavigator((path) => window.location.assign(path));
  localStorage.clear();
});

describe('a refused realtime connection', () => {
  it('RT-03: a 401 that cannot be renewed clears the session and storage (keeping the 语音播报 choice) and goes to /login with 登录超时', () => {
    const navigate = vi.fn();
    const error = vi.fn();
    setNavigator(navigate);
    setNotifier({ error });
    useSession.getState().signIn({
      token: 'expired',
      refreshToken: 'r',
      setPasswordMust: false,
      user: { userId: 9, userName: '13900000009', name: '护士' },
    } as Parameters<ReturnType<typeof useSession.getState>['signIn']>[0]);
    useSpeechSetting.getState().set(9, true);
    localStorage.setItem('studyName', '骨科研究');

    endRealtimeSession();

    expect(navigate).toHaveBeenCalledWith('/login');
    expect(error).toHaveBeenCalledWith('登录超时');
    expect(useSession.getState().token).toBeNull();
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('studyName')).toBeNull();
    expect(useSpeechSetting.getState().isOn(9)).toBe(true);
    expect(localStorage.getItem('edc.pref.speech.9')).toBe('on');
  });
});
