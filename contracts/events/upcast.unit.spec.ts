/**
 * A `usage.recorded` written at version 1 (before prices) is read as version 2 with no cost and no
 * price: old logs replay unchanged, and their requests count as unpriced, never at a guessed cost.
 */
import { describe, expect, it } from 'vitest';
import { gatewayEventSchema } from './index.ts';
import { upcast, upcastTrusted } from './upcast.ts';

/** As a gateway of the first release wrote it to its log, byte for byte. */
const storedVersion1 = `{"eventId":"0195a5b2-7c00-7000-8000-000000000007","type":"usage.recorded","version":1,
"occurredAt":"2025-03-01T10:15:00.500Z","body":{"requestId":"r7","userId":"u1","tokenId":"t1","channelId":"c1",
"model":"gpt-4o-mini","startedAt":"2025-03-01T10:15:00.000Z","promptTokens":120,"completionTokens":30,
"cachedTokens":100,"cacheWriteTokens":0,"reasoningTokens":0,"source":"upstream"}}`;

describe('usage.recorded version 1', () => {
  it('is lifted to version 2, unpriced, with every field it had unchanged', () => {
    const stored = JSON.parse(storedVersion1);
    const read = upcast(JSON.parse(storedVersion1));
    expect(read.version).toBe(2);
    expect(read.body).toEqual({ ...stored.body, costNanoUsd: null, price: null });
    expect(read.eventId).toBe(stored.eventId);
    expect(read.occurredAt).toBe(stored.occurredAt);
  });

  it('is lifted the same way from the local log, which skips the full check', () => {
    expect(upcastTrusted(JSON.parse(storedVersion1))).toEqual(upcast(JSON.parse(storedVersion1)));
  });

  it('is not an event of the current union until lifted', () => {
    expect(gatewayEventSchema.safeParse(JSON.parse(storedVersion1)).success).toBe(false);
  });

  it('is still refused after lifting when it was malformed', () => {
    const broken = JSON.parse(storedVersion1);
    delete broken.body.promptTokens;
    expect(() => upcast(broken)).toThrow();
  });

  it('leaves a version 2 event, priced or not, as it was', () => {
    const lifted = upcast(JSON.parse(storedVersion1));
    const priced = {
      ...lifted,
      body: {
        ...lifted.body,
        costNanoUsd: 25_800,
        price: {
          source: 'genai-prices',
          model: 'openai:gpt-4o-mini',
          inputPerMillion: 0.15,
          outputPerMillion: 0.6,
          cacheReadPerMillion: 0.075,
          cacheWritePerMillion: 0.15,
          perRequest: 0,
        },
      },
    };
    expect(upcast(JSON.parse(JSON.stringify(priced)))).toEqual(priced);
    expect(upcast(JSON.parse(JSON.stringify(lifted)))).toEqual(lifted);
  });

  it('refuses a version 2 event whose cost is not a whole number of nano-dollars', () => {
    const lifted = upcast(JSON.parse(storedVersion1));
    for (const costNanoUsd of [1.5, -1, '100']) {
      expect(gatewayEventSchema.safeParse({ ...lifted, body: { ...lifted.body, costNanoUsd } }).success).toBe(false);
    }
  });
});
