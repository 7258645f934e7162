/**
 * The usage log read from a real ClickHouse: the shared scenario (test/support/usage-log-scenario.ts),
 * the same one the SQLite store runs, its events written twice so that unmerged duplicates are there.
 */
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { trafficFacts } from '../../contracts/events/index.ts';
import { ClickHouseUsageQueries } from '../../stores/cluster/clickhouse-usage-queries.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import {
  checkCacheWriteTokens,
  checkUsageLogFilters,
  filterScenarioEvents,
} from '../support/usage-log-filter-scenario.ts';
import {
  checkChannelUsageScenario,
  checkUsageLogScenario,
  usageLogScenarioEvents,
} from '../support/usage-log-scenario.ts';
import { checkUsageLogPages, checkUsageLogTotals, sentRequests, totalsEvents } from '../support/usage-log-totals.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `usagelog${Date.now().toString(36)}`;
let client: ClickHouseClient;

describe.skipIf(services === null)('the usage log on a real ClickHouse', () => {
  beforeAll(async () => {
    client = createClient({ url: services!.clickhouseUrl });
    await migrateClickHouse(client, database);
    const writer = new ClickHouseUsageWriter(client, database);
    // The projector splits a request's event into its request and usage facts before writing them.
    const events = [...usageLogScenarioEvents(), ...trafficFacts(filterScenarioEvents())];
    await writer.write(events);
    await writer.write(events.slice(3, 11));
    await writer.write(events.slice(-4));
  });

  afterAll(async () => {
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  it('finds requests by id, model part and outcome, with their messages, attempts, tokens and count', async () => {
    const queries = new ClickHouseUsageQueries(client, database);
    await checkUsageLogScenario((query) => queries.logs(query));
  });

  it('filters by endpoint, streaming and error type, and shows each request’s cache writes', async () => {
    const queries = new ClickHouseUsageQueries(client, database);
    await checkUsageLogFilters((query) => queries.logs(query));
    await checkCacheWriteTokens((query) => queries.logs(query));
  });

  it('counts the matches of every range and filter: whole hours from the rollups, cut hours from the raw rows', async () => {
    const totalsDatabase = `${database}_totals`;
    try {
      await migrateClickHouse(client, totalsDatabase);
      const writer = new ClickHouseUsageWriter(client, totalsDatabase);
      const sent = sentRequests(Date.now());
      const events = totalsEvents(sent);
      await writer.write(events);
      await writer.write(events.slice(10, 60));
      const queries = new ClickHouseUsageQueries(client, totalsDatabase);
      await checkUsageLogTotals((query) => queries.logs(query), sent);
      await checkUsageLogPages((query) => queries.logs(query), sent);
    } finally {
      await client.command({ query: `DROP DATABASE IF EXISTS ${totalsDatabase}` });
    }
  });

  it('sums each channel’s calls, errors and latency since a time, duplicates once', async () => {
    const queries = new ClickHouseUsageQueries(client, database);
    await checkChannelUsageScenario((since) => queries.channelUsage(since));
  });
});
