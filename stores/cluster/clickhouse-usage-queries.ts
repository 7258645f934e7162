/**
 * @module stores/cluster/clickhouse-usage-queries
 * The data overview (clickhouse-overview.ts) and the usage log (clickhouse-usage-log.ts) read from
 * ClickHouse, in the same shapes as the embedded store.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { UsageLogsPage, UsageLogsQuery, UsageOverview, UsageOverviewQuery } from '../../contracts/console-api.ts';
import type { UsageReadModel } from '../ports.ts';
import { readOverview } from './clickhouse-overview.ts';
import { identifier } from './clickhouse-sql.ts';
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

  overview(query: UsageOverviewQuery & { userId: string | null }): Promise<UsageOverview> {
    return readOverview((sql) => this.#rows(sql), this.#database, query);
  }

  logs(query: UsageLogsQuery & { userId: string | null }): Promise<UsageLogsPage> {
    return readUsageLog((sql) => this.#rows(sql), this.#database, query);
  }
}
