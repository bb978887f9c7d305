import { create } from 'zustand';
import { PREFERENCE_PREFIX } from '../stores/local-storage';

/** 语音播报 is a personal choice: remembered per user in this browser, off until the user turns it on. */
const keyOf = (userId: number) => `${PREFERENCE_PREFIX}speech.${userId}`;

function read(userId: number): boolean {
  try {
    return window.localStorage.getItem(keyOf(userId)) === 'on';
  } catch {
    return false;
  }
}

interface SpeechSetting {
  /** Per user id: whether notices are spoken. */
  enabled: Record<number, boolean>;
  isOn: (userId: number | null | undefined) => boolean;
  set: (userId: number, on: boolean) => void;
}

export const useSpeechSetting = create<SpeechSetting>()((set, get) => ({
  enabled: {},
  isOn: (userId) => {
    if (userId === null || userId === undefined) return false;
    return get().enabled[userId] ?? read(userId);
  },
  set: (userId, on) => {
    try {
      if (on) window.localStorage.setItem(keyOf(userId), 'on');
      else window.localStorage.removeItem(keyOf(userId));
    } catch {
      // Without storage the choice lasts until the page is left.
    }
    set((state) => ({ enabled: { ...state.enabled, [userId]: on } }));
  },
}));
