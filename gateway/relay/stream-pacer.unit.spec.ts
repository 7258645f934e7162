/**
 * The per-key stream pace: a key's streams draw from one bucket of a second's worth, refilled at the
 * rate; what is drawn past it is paid for in waiting; another key's bucket is its own; the bucket is
 * forgotten when the key's last stream closes; a rate of 0 paces nothing.
 */
import { describe, expect, it } from 'vitest';
import { StreamPacer } from './stream-pacer.ts';

describe('StreamPacer', () => {
  it('lets a second’s worth through at once, then asks each chunk to wait for its bytes at the rate', () => {
    let now = 0;
    const pacer = new StreamPacer(1000, () => now);
    const { pace } = pacer.open('key-a');
    expect(pace(600)).toBe(0);
    expect(pace(400)).toBe(0);
    expect(pace(500)).toBe(500);
    now += 500;
    // The half second refilled what the last chunk overdrew, and nothing more.
    expect(pace(100)).toBe(100);
  });

  it('shares one bucket among a key’s streams and keeps another key’s apart', () => {
    let now = 0;
    const pacer = new StreamPacer(1000, () => now);
    const first = pacer.open('key-a');
    const second = pacer.open('key-a');
    const other = pacer.open('key-b');
    expect(first.pace(1000)).toBe(0);
    expect(second.pace(1000)).toBe(1000);
    expect(other.pace(1000)).toBe(0);
    now += 2000;
    expect(first.pace(1000)).toBe(0);
  });

  it('forgets a key once its last stream closes, and paces nothing at a rate of 0', () => {
    const pacer = new StreamPacer(1000, () => 0);
    const first = pacer.open('key-a');
    const second = pacer.open('key-a');
    first.close();
    first.close();
    expect(pacer.keys).toBe(1);
    second.close();
    expect(pacer.keys).toBe(0);
    const free = new StreamPacer(0).open('key-a');
    expect(free.pace(1 << 30)).toBe(0);
  });
});
