/**
 * @module stores/cluster/clickhouse-usage-writer
 * Writes a batch of traffic events to ClickHouse: raw rows first (deduplicated by request id), then the
 * rollup rows of every (user, hour) the batch touched, recomputed inside ClickHouse (see
 * clickhouse-rollup-sql.ts), then the all-users rollups of the touched hours, then of the touched days.
 * Replaying a batch any number of times converges to the same totals. The projector hands over the
 * rows of several batches, encoded when it read them (clickhouse-traffic-rows.ts), and they are written
 * as one batch. Per batch: two inserts, for
 * recent hours the minute slots, then the rollups level by level, each summed from the level below:
 * the per-key hours, then the per-key and per-user-and-model hours, then the all-users hours and the
 * per-key days, then the all-users days (statements of one level sent at once).
 *
 * Recent hours (a live write's) are summed from their minute slots, which the write recomputes first
 * for the minutes it touched; older hours (a backlog's, a late event's) from the raw rows. Slots are
 * kept for a wider window than they are read for, so an hour is read from slots only if every write
 * into it kept them, even across projectors whose clocks differ by up to an hour.
 */
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { type BackfillLog, backfillRollups } from './clickhouse-rollup-backfill.ts';
import {
  chunkTouched,
  dailyModelRollupInsert,
  dailyTokenRollupInsert,
  daysOf,
  type HourSource,
  hoursCondition,
  hoursOfDaysCondition,
  hoursOfMinutes,
  keyRollupInsert,
  modelRollupInsert,
  pairsCondition,
  slotRollupInsert,
  statementSettings,
  type TouchedHours,
  tokenRollupInsert,
  userModelRollupFromKeys,
} from './clickhouse-rollup-sql.ts';
import { identifier, stringLiteral } from './clickhouse-sql.ts';
import { requestColumns, type TrafficRows, touchedOf, trafficRows, usageColumns } from './clickhouse-traffic-rows.ts';

const HOUR_SECONDS = 3600;
/** Hours starting this long before the current hour, or later, keep minute slots… */
const SLOTS_KEPT_SECONDS = 3 * HOUR_SECONDS;
/** …and those starting this long before it, or later, are summed from them. */
const SLOTS_READ_SECONDS = 2 * HOUR_SECONDS;

const seconds = (milliseconds: number) => Math.floor(milliseconds / 1000);

/** The start (epoch seconds) of the oldest hour whose writes keep minute slots, at `now` (epoch ms). */
export function slotsKeptFrom(now: number): number {
  const hour = seconds(now) - (seconds(now) % HOUR_SECONDS);
  return hour - SLOTS_KEPT_SECONDS;
}

/** The pairs of `touched` whose start passes `keep`; users with none left out. */
function within(touched: TouchedHours, keep: (start: number) => boolean): TouchedHours {
  const kept: TouchedHours = new Map();
  for (const [user, starts] of touched) {
    const chosen = [...starts].filter(keep);
    if (chosen.length > 0) kept.set(user, new Set(chosen));
  }
  return kept;
}

export class ClickHouseUsageWriter {
  readonly #client: ClickHouseClient;
  readonly #database: string;
  readonly #now: () => number;
  #lastVersion = 0;

  /** `now` (epoch milliseconds) tells recent hours from old ones; tests move it. */
  constructor(client: ClickHouseClient, database: string, now: () => number = Date.now) {
    this.#client = client;
    this.#database = identifier(database);
    this.#now = now;
  }

  /** Once, before the first batch: fills the rollups this deployment did not have yet. */
  async prepare(log?: BackfillLog): Promise<void> {
    await backfillRollups(this.#client, this.#database, { log, slotsKeptFrom: this.#slotsKeptFrom() });
  }

  async write(events: readonly GatewayEvent[]): Promise<void> {
    await this.writeRows([trafficRows(events)]);
  }

  /** Writes the rows of several batches (trafficRows) at once, and recomputes what they touched. */
  async writeRows(batches: readonly TrafficRows[]): Promise<void> {
    const requests = batches.flatMap((batch) => batch.requests);
    const usage = batches.flatMap((batch) => batch.usage);
    const touched = touchedOf(batches);
    await Promise.all([this.#insert('requests', requestColumns, requests), this.#insert('usage', usageColumns, usage)]);
    const keptFrom = this.#slotsKeptFrom();
    // The touched minutes of recent hours first, so that each hour below is summed from complete slots.
    const kept = within(touched, (minute) => minute >= keptFrom);
    for (const chunk of chunkTouched(kept))
      await this.#run(slotRollupInsert(this.#database, pairsCondition(chunk, 'raw minutes'), this.#nextVersion()));
    const read = (hour: number) => hour >= keptFrom + SLOTS_KEPT_SECONDS - SLOTS_READ_SECONDS;
    for (const chunk of chunkTouched(hoursOfMinutes(touched)))
      await this.#recompute(
        chunk,
        within(chunk, read),
        within(chunk, (hour) => !read(hour)),
      );
  }

  #slotsKeptFrom(): number {
    return slotsKeptFrom(this.#now());
  }

  async #insert(table: string, columns: readonly [string, ...string[]], rows: readonly Buffer[]): Promise<void> {
    if (rows.length > 0)
      await this.#client.insert({
        table: `${this.#database}.${table}`,
        columns: [...columns] as [string, ...string[]],
        values: Readable.from(rows, { objectMode: false }),
        format: 'TabSeparated',
      });
  }

  /**
   * Versions are microseconds, taken before a statement reads its sources: of two recomputes of the
   * same rows, the one with the higher version started reading later and saw every write the other
   * saw, so the surviving row is never the staler one, even with batches written concurrently.
   */
  #nextVersion(): number {
    this.#lastVersion = Math.max(Date.now() * 1000, this.#lastVersion + 1);
    return this.#lastVersion;
  }

  #run(query: string): Promise<unknown> {
    return this.#client.command({ query, clickhouse_settings: statementSettings });
  }

  /** `fromSlots` and `fromRaw` split `touched` by where its hours are summed from. */
  async #recompute(touched: TouchedHours, fromSlots: TouchedHours, fromRaw: TouchedHours): Promise<void> {
    const db = this.#database;
    const sources: HourSource[] = [];
    if (fromSlots.size > 0) sources.push({ from: 'slots', condition: pairsCondition(fromSlots, 'slot hours') });
    if (fromRaw.size > 0) sources.push({ from: 'raw', condition: pairsCondition(fromRaw, 'raw hours') });
    // Each level is summed from the one below it, recomputed just before with an older version.
    const first = this.#nextVersion();
    await Promise.all(sources.map((source) => this.#run(keyRollupInsert(db, source, first))));
    const hours = new Set([...touched.values()].flatMap((set) => [...set]));
    const touchedPairs = pairsCondition(touched, 'hours');
    const second = this.#nextVersion();
    await Promise.all([
      this.#run(tokenRollupInsert(db, touchedPairs, second)),
      this.#run(userModelRollupFromKeys(db, touchedPairs, second)),
    ]);
    // Every touched user's whole touched days: more (user, day) pairs than were touched, which is
    // harmless (whole rows, recomputed), and one short condition.
    const days = hoursOfDaysCondition(daysOf(hours));
    const users = `user_id IN (${[...touched.keys()].map(stringLiteral).join(', ')})`;
    const third = this.#nextVersion();
    await Promise.all([
      this.#run(modelRollupInsert(db, hoursCondition([...hours]), third)),
      this.#run(dailyTokenRollupInsert(db, `${days} AND ${users}`, third)),
    ]);
    await this.#run(dailyModelRollupInsert(db, days, this.#nextVersion()));
  }
}
