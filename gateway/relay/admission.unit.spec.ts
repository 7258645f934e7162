/**
 * A node refuses new relay requests while its event log is too far behind, with a 503 that says so
 * and when to come back; below the limit, or with no limit, it takes them.
 */
import { describe, expect, it } from 'vitest';
import { refuseWhenEventsBehind } from './admission.ts';
import { GatewayError } from './errors.ts';

describe('refuseWhenEventsBehind', () => {
  it('takes requests below the limit and without one', () => {
    expect(() => refuseWhenEventsBehind(0, 1)).not.toThrow();
    expect(() => refuseWhenEventsBehind(49_999, 50_000)).not.toThrow();
    expect(() => refuseWhenEventsBehind(10_000_000, undefined)).not.toThrow();
  });

  it('refuses at the limit with 503 event_log_behind and retry-after', () => {
    let refusal: unknown;
    try {
      refuseWhenEventsBehind(50_000, 50_000);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    const error = refusal as GatewayError;
    expect(error.status).toBe(503);
    expect(error.code).toBe('event_log_behind');
    expect(error.headers).toEqual({ 'retry-after': '1' });
    expect(error.message).toMatch(/50000 records waiting/);
  });
});
