import { describe, expect, it, vi } from 'vitest';
import { createSpeaker, type Utterance } from './speech';

function fakeEngine() {
  const spoken: (Utterance & { text: string })[] = [];
  return {
    spoken,
    engine: { speak: vi.fn((u: Utterance & { text: string }) => spoken.push(u)), cancel: vi.fn() },
    make: (text: string): Utterance & { text: string } => ({ text, lang: '', onend: null, onerror: null }),
  };
}

describe('speaker', () => {
  it('speaks in zh-CN one notice after another', () => {
    const { engine, make, spoken } = fakeEngine();
    const speaker = createSpeaker(engine, make);
    speaker.say('新质疑，生命体征');
    speaker.say('质疑已回复，生命体征');
    expect(spoken.map((u) => u.text)).toEqual(['新质疑，生命体征']);
    expect(spoken[0]!.lang).toBe('zh-CN');
    spoken[0]!.onend?.(undefined);
    expect(spoken.map((u) => u.text)).toEqual(['新质疑，生命体征', '质疑已回复，生命体征']);
  });

  it('RT-04: at most 10 notices wait; the oldest waiting ones are dropped for the newest', () => {
    const { engine, make, spoken } = fakeEngine();
    const speaker = createSpeaker(engine, make);
    for (let i = 1; i <= 15; i += 1) speaker.say(`通知${i}`);
    // 通知1 is being spoken; 2–15 came while it was: only the newest 10 wait.
    expect(speaker.waiting).toBe(10);
    for (let i = 0; i < 20; i += 1) spoken.at(-1)?.onend?.(undefined);
    expect(spoken.map((u) => u.text)).toEqual(['通知1', ...Array.from({ length: 10 }, (_, i) => `通知${i + 6}`)]);
    expect(speaker.waiting).toBe(0);
  });

  it('goes on after an utterance fails, and stop silences what waits', () => {
    const { engine, make, spoken } = fakeEngine();
    const speaker = createSpeaker(engine, make);
    speaker.say('一');
    speaker.say('二');
    speaker.say('三');
    spoken[0]!.onerror?.(undefined);
    expect(spoken.map((u) => u.text)).toEqual(['一', '二']);
    speaker.stop();
    expect(engine.cancel).toHaveBeenCalled();
    expect(speaker.waiting).toBe(0);
    speaker.say('四');
    expect(spoken.map((u) => u.text)).toEqual(['一', '二', '四']);
  });
});
