/**
 * Both formats of a Kafka message decode: a message of the first release (one event, the envelope as
 * the value, byte for byte as written then) and a batch of format 2; a malformed event in a batch is
 * reported by position without losing its neighbours; a format this release does not know is refused.
 */
import { describe, expect, it } from 'vitest';
import { requestEvents as requestPair } from '../../test/support/request-events.ts';
import { decodeLogMessage, encodeLogMessage } from './log-message.ts';

/** A format-1 message of the first release: a `usage.recorded` of version 1, as written to its topic. */
const format1UsageV1 = `{"eventId":"0195a5b2-7c00-7000-8000-000000000007","type":"usage.recorded","version":1,
"occurredAt":"2025-03-01T10:15:00.500Z","body":{"requestId":"r7","userId":"u1","tokenId":"t1","channelId":"c1",
"model":"gpt-4o-mini","startedAt":"2025-03-01T10:15:00.000Z","promptTokens":120,"completionTokens":30,
"cachedTokens":100,"cacheWriteTokens":0,"reasoningTokens":0,"source":"upstream"}}`;

describe('a Kafka message of format 1 (one event)', () => {
  it('decodes to its one event, lifted to the current version', () => {
    const { events, unreadable } = decodeLogMessage(format1UsageV1);
    expect(unreadable).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'usage.recorded',
      version: 2,
      body: { requestId: 'r7', costNanoUsd: null },
    });
  });

  it('is refused as a whole when its one event is malformed', () => {
    const broken = JSON.parse(format1UsageV1);
    delete broken.body.promptTokens;
    expect(() => decodeLogMessage(JSON.stringify(broken))).toThrow();
  });
});

describe('a Kafka message of format 2 (a batch)', () => {
  it('decodes to the events it was encoded from, in order', () => {
    const events = [...requestPair('r1'), ...requestPair('r2')];
    const text = encodeLogMessage(events);
    expect(JSON.parse(text)).toMatchObject({ format: 2 });
    expect(decodeLogMessage(text)).toEqual({ events, unreadable: [] });
  });

  it('lifts older event versions inside a batch as it does a single event', () => {
    const text = `{"format":2,"events":[${format1UsageV1}]}`;
    expect(decodeLogMessage(text).events[0]).toMatchObject({ version: 2, body: { price: null } });
  });

  it('keeps the readable events of a batch and reports the malformed one by position', () => {
    const events = [...requestPair('r1'), ...requestPair('r2')];
    const value = JSON.parse(encodeLogMessage(events));
    delete value.events[1].body.promptTokens;
    const decoded = decodeLogMessage(JSON.stringify(value));
    expect(decoded.events).toEqual([events[0], events[2], events[3]]);
    expect(decoded.unreadable).toHaveLength(1);
    expect(decoded.unreadable[0]!.index).toBe(1);
    expect(decoded.unreadable[0]!.error).toContain('promptTokens');
  });

  it('refuses an empty batch, a batch without events, and a format it does not know', () => {
    expect(() => decodeLogMessage('{"format":2,"events":[]}')).toThrow(/format 2 is malformed/);
    expect(() => decodeLogMessage('{"format":2}')).toThrow(/format 2 is malformed/);
    expect(() => decodeLogMessage('{"format":3,"events":[{}]}')).toThrow(/format 3 is not readable/);
  });

  it('refuses a value that is not JSON, and encoding no events', () => {
    expect(() => decodeLogMessage('{"format":2,')).toThrow(SyntaxError);
    expect(() => encodeLogMessage([])).toThrow(/at least one event/);
  });
});
