/**
 * The overview in the viewer's time zone, through the console API on the embedded
 * store: a call at 01:23 in Shanghai on 26 November counts under the 26th there and under the 25th in
 * UTC; a zone with a half-hour offset is answered but said not to be exact; an unknown zone is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { callsByDay, timeZoneRange, timeZoneTraffic } from '../support/time-zone-traffic.ts';

let harness: Harness;
let console: ConsoleClient;
const range = `from=${timeZoneRange.from}&to=${timeZoneRange.to}&granularity=day`;

beforeAll(async () => {
  harness = await startHarness();
  console = new ConsoleClient(harness.baseUrl);
  const user = await console.register('zones@example.com');
  const token = await console.createToken('zones');
  harness.runtime.publisher.publish(...timeZoneTraffic(user.id, token.id));
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
});
afterAll(async () => harness.stop());

describe('the overview in the viewer’s time zone', () => {
  it('counts a call at 01:23 in Shanghai under the 26th there, and under the 25th in UTC', async () => {
    const shanghai = (await console.call('GET', `/api/usage/overview?${range}&tz=Asia/Shanghai`)).body;
    expect(shanghai).toMatchObject({ time_zone: 'Asia/Shanghai', time_zone_exact: true });
    // Shanghai's 26th starts at 16:00 UTC on the 25th and holds both calls.
    expect(callsByDay(shanghai.series)).toEqual({ '2026-11-25T16:00:00.000Z': 2 });
    const utc = (await console.call('GET', `/api/usage/overview?${range}`)).body;
    expect(utc.time_zone).toBe('UTC');
    expect(callsByDay(utc.series)).toEqual({ '2026-11-25T00:00:00.000Z': 1, '2026-11-26T00:00:00.000Z': 1 });
    const explicitUtc = (await console.call('GET', `/api/usage/overview?${range}&tz=UTC`)).body;
    expect(explicitUtc.series).toEqual(utc.series);
    expect(shanghai.totals).toEqual(utc.totals);
  });

  it('follows a zone west of UTC and its daylight-saving change', async () => {
    const newYork = (await console.call('GET', `/api/usage/overview?${range}&tz=America/New_York`)).body;
    // New York is at -05:00 in November: 12:23 on the 25th and 07:00 on the 26th.
    expect(callsByDay(newYork.series)).toEqual({ '2026-11-25T05:00:00.000Z': 1, '2026-11-26T05:00:00.000Z': 1 });
    expect(newYork.time_zone_exact).toBe(true);
  });

  it('says when a zone’s half-hour offset makes its days inexact', async () => {
    const kolkata = (await console.call('GET', `/api/usage/overview?${range}&tz=Asia/Kolkata`)).body;
    expect(kolkata).toMatchObject({ time_zone: 'Asia/Kolkata', time_zone_exact: false });
    expect(kolkata.totals.calls).toBe(2);
  });

  it('refuses an unknown zone with a clear error', async () => {
    const refused = await console.call('GET', `/api/usage/overview?${range}&tz=Mars/Olympus`);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('IANA time zone');
  });
});
