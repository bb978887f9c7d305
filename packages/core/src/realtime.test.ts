import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedQueue, SPEECH_QUEUE_LIMIT } from './realtime.js';

describe('BoundedQueue', () => {
  it('RT-04: the speech queue holds at most 10 entries and drops the oldest for the newest', () => {
    const queue = new BoundedQueue<number>(SPEECH_QUEUE_LIMIT);
    expect(SPEECH_QUEUE_LIMIT).toBe(10);
    const dropped: number[] = [];
    for (let i = 1; i <= 13; i += 1) {
      const out = queue.push(i);
      if (out !== undefined) dropped.push(out);
    }
    expect(queue.size).toBe(10);
    expect(dropped).toEqual([1, 2, 3]);
    expect(queue.toArray()).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(queue.shift()).toBe(4);
    expect(queue.size).toBe(9);
  });

  it('RT-04: never holds more than its limit, and keeps the newest entries in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.oneof(fc.integer(), fc.constant('take'))),
        (limit, ops) => {
          const queue = new BoundedQueue<number>(limit);
          const model: number[] = [];
          for (const op of ops) {
            if (op === 'take') {
              expect(queue.shift()).toBe(model.shift());
            } else {
              queue.push(op);
              model.push(op);
              if (model.length > limit) model.shift();
            }
            expect(queue.size).toBeLessThanOrEqual(limit);
            expect(queue.toArray()).toEqual(model);
          }
        },
      ),
    );
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new BoundedQueue(0)).toThrow(RangeError);
    expect(() => new BoundedQueue(1.5)).toThrow(RangeError);
  });
});
