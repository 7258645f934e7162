import { afterEach, describe, expect, it, vi } from 'vitest';
import { millisecondsSince } from './elapsed.ts';
import { RequestRecord } from './request-record.ts';

afterEach(() => vi.restoreAllMocks());

describe('millisecondsSince', () => {
  it('rounds to the microsecond, so an event prints a few digits, not seventeen', () => {
    vi.spyOn(performance, 'now').mockReturnValue(1053.170290000001);
    expect(millisecondsSince(1000.1234567)).toBe(53.047);
    expect(String(millisecondsSince(0.0000004))).toBe('1053.17');
  });

  it("is what a request's event records for its latency and first token", () => {
    const now = vi.spyOn(performance, 'now').mockReturnValue(100.00000001);
    const record = new RequestRecord('r1', 'chat.completions');
    now.mockReturnValue(112.34567891);
    record.markFirstToken();
    now.mockReturnValue(153.04570100000001);
    const [event] = record.toEvents();
    expect(event?.type).toBe('request.completed');
    const body = event!.body as { latencyMs: number; firstTokenMs: number | null };
    expect(body.latencyMs).toBe(53.046);
    expect(body.firstTokenMs).toBe(12.346);
  });
});
