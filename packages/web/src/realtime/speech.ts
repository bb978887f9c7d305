import { BoundedQueue, SPEECH_QUEUE_LIMIT } from '@ecrf/core';

/** The part of the browser's speechSynthesis the speaker uses (a fake in unit tests). */
export interface SpeechEngine<U extends Utterance = Utterance> {
  speak(utterance: U): void;
  cancel(): void;
}

export interface Utterance {
  lang: string;
  onend: ((this: any, ev: any) => unknown) | null;
  onerror: ((this: any, ev: any) => unknown) | null;
}

/** An utterance that never reports its end (a known Chromium fault) must not stop the queue for good. */
const STUCK_MS = 30_000;

/**
 * Speaks notices one after another in zh-CN (platform §9). Waiting notices are held in our own queue of
 * at most 10 (RT-04), not in the browser's unbounded one: when an eleventh arrives, the oldest waiting
 * notice is dropped, so what is spoken stays current.
 */
export function createSpeaker<U extends Utterance>(
  engine: SpeechEngine<U>,
  makeUtterance: (text: string) => U,
  limit = SPEECH_QUEUE_LIMIT,
): Speaker {
  const queue = new BoundedQueue<string>(limit);
  let speaking = false;
  let guard: ReturnType<typeof setTimeout> | null = null;

  const finished = () => {
    if (guard) clearTimeout(guard);
    guard = null;
    speaking = false;
    pump();
  };

  function pump() {
    if (speaking) return;
    const text = queue.shift();
    if (text === undefined) return;
    speaking = true;
    const utterance = makeUtterance(text);
    utterance.lang = 'zh-CN';
    utterance.onend = finished;
    utterance.onerror = finished;
    guard = setTimeout(finished, STUCK_MS);
    engine.speak(utterance);
  }

  return {
    say(text: string) {
      queue.push(text);
      pump();
    },
    /** Silence: drop what waits and stop what is being said (speech turned off, sign-out). */
    stop() {
      queue.clear();
      if (guard) clearTimeout(guard);
      guard = null;
      speaking = false;
      engine.cancel();
    },
    /** Notices waiting to be spoken (the one being spoken is not counted). */
    get waiting() {
      return queue.size;
    },
  };
}

export interface Speaker {
  say(text: string): void;
  stop(): void;
  readonly waiting: number;
}

/** The browser's speaker, or null where the browser has no speech synthesis. */
export function browserSpeaker(): Speaker | null {
  if (typeof window === 'undefined' || !('speechSynthesis' in window) || !('SpeechSynthesisUtterance' in window)) {
    return null;
  }
  return createSpeaker(window.speechSynthesis, (text) => new SpeechSynthesisUtterance(text));
}
