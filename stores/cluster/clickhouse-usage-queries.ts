/**
 * @module stores/cluster/clickhouse-usage-queries
 * The data overview (clickhouse-overview.ts) and the usage log (clickhouse-usage-log.ts) read from
 * ClickHouse, in the same shapes as the embedded store.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type {
  ChannelUsage,
  SessionDetail,
  SessionsPage,
  SessionsQuery,
  UsageGroup,
  UsageLogsPage,
  UsageLogsQuery,
  UsageOverview,
  UsageOverviewQuery,
} from '../../contracts/console-api.ts';
import type { UsageGroupsQuery, UsageReadModel } from '../ports.ts';
import { channelUsageOf } from '../usage-channel.ts';
import { readGroups, readSession, readSessions } from './clickhouse-attribution-queries.ts';
import { readOverview } from './clickhouse-overview.ts';
import { identifier, integerLiteral } from './clickhouse-sql.ts';
import { tsvRows } from './clickhouse-tsv.ts';
import { readUsageLog } from './clickhouse-usage-log.ts';

export class ClickHouseUsageQueries implements UsageReadModel {
  readonly #client: ClickHouseClient;
  readonly #database: string;

  constructor(client: ClickHouseClient, database: string) {
    this.#client = client;
    this.#database = identifier(database);
  }

  async #rows<Row>(query: string): Promise<Row[]> {
    const result = await this.#client.query({ query, format: 'JSONEachRow' });
    return (await result.json()) as Row[];
  }

  async #textRows(query: string): Promise<string[][]> {
    const result = await this.#client.query({ query, format: 'TabSeparated' });
    return tsvRows(await result.text());
  }

  overview(query: UsageOverviewQuery & { userId: string | null }): Promise<UsageOverview> {
    return readOverview(
      (sql) => this.#rows(sql),
      (sql) => this.#textRows(sql),
      this.#database,
      query,
    );
  }

  async channelUsage(sinceMs: number): Promise<ChannelUsage[]> {
    const rows = await this.#rows<{ channel_id: string; calls: string; errors: string; latency: number }>(
      `SELECT channel_id, sum(calls) AS calls, sum(errors) AS errors, sum(latency_ms_sum) AS latency
       FROM ${this.#database}.usage_hourly FINAL
       WHERE hour >= toDateTime(${integerLiteral(Math.floor(sinceMs / 1000))}) AND channel_id != ''
       GROUP BY channel_id ORDER BY channel_id`,
    );
    return rows.map((row) =>
      channelUsageOf({ ...row, calls: Number(row.calls), errors: Number(row.errors), latency: Number(row.latency) }),
    );
  }

  logs(query: UsageLogsQuery & { userId: string | null }): Promise<UsageLogsPage> {
    return readUsageLog((sql) => this.#rows(sql), this.#database, query);
  }

  groups(query: UsageGroupsQuery): Promise<UsageGroup[]> {
    return readGroups((sql) => this.#rows(sql), this.#database, query);
  }

  sessions(query: SessionsQuery & { userId: string | null }): Promise<SessionsPage> {
    return readSessions((sql) => this.#rows(sql), this.#database, query);
  }

  session(sessionId: string, userId: string | null): Promise<SessionDetail | null> {
    return readSession((sql) => this.#rows(sql), this.#database, sessionId, userId);
  }
}
