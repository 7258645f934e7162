/**
 * The bounds a hostile request shape meets, as configured: a continuation's expanded size
 * (CONVERSATION_LIMIT_BYTES, 8 MiB unless set) and what a key's streams relay per second on a node
 * (STREAM_BYTES_PER_SECOND_PER_KEY, 8 MiB unless set, 0 for no pace); a value that is no count stops
 * the start with its name.
 */
import { describe, expect, it } from 'vitest';
import { readSettings } from './settings.ts';

describe('readSettings: the bounds of request shapes', () => {
  it('defaults the conversation limit and the stream pace to 8 MiB, apart from the body limit', () => {
    const settings = readSettings({ BODY_LIMIT_BYTES: String(64 << 20) });
    expect(settings.conversationLimitBytes).toBe(8 << 20);
    expect(settings.streamBytesPerSecondPerKey).toBe(8 << 20);
  });

  it('takes both from the environment, 0 turning the pace off', () => {
    const settings = readSettings({ CONVERSATION_LIMIT_BYTES: '1000000', STREAM_BYTES_PER_SECOND_PER_KEY: '0' });
    expect(settings.conversationLimitBytes).toBe(1_000_000);
    expect(settings.streamBytesPerSecondPerKey).toBe(0);
  });

  it('refuses a pace that is no count, naming it', () => {
    expect(() => readSettings({ STREAM_BYTES_PER_SECOND_PER_KEY: 'fast' })).toThrow(/STREAM_BYTES_PER_SECOND_PER_KEY/);
  });
});
