/**
 * @module stores/cluster/clickhouse-retention
 * Usage retention in ClickHouse: partitions (months) older than the configured number of months are
 * dropped. ClickHouse 18.16 has no table TTL, and dropping a partition is the cheapest delete there
 * is, on every version. 0 keeps everything.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { projectionTableNames } from './clickhouse-schema.ts';
import { identifier, stringLiteral } from './clickhouse-sql.ts';

/** `YYYYMM` of the oldest month to keep, counting the current month as the first. */
export function oldestKeptMonth(now: Date, months: number): number {
  const month = now.getUTCFullYear() * 12 + now.getUTCMonth() - (months - 1);
  return Math.floor(month / 12) * 100 + (month % 12) + 1;
}

export async function dropExpiredPartitions(
  client: ClickHouseClient,
  database: string,
  months: number,
  now = new Date(),
): Promise<string[]> {
  if (months <= 0) return [];
  const db = identifier(database);
  const oldest = oldestKeptMonth(now, months);
  const result = await client.query({
    query: `SELECT DISTINCT table, partition FROM system.parts
      WHERE database = ${stringLiteral(db)} AND active AND table IN (${projectionTableNames.map(stringLiteral).join(', ')})`,
    format: 'JSONEachRow',
  });
  const parts = (await result.json()) as Array<{ table: string; partition: string }>;
  const dropped: string[] = [];
  for (const { table, partition } of parts) {
    // Partitions are toYYYYMM values; anything else is not ours to drop.
    if (!/^\d{6}$/.test(partition) || Number(partition) >= oldest) continue;
    await client.command({ query: `ALTER TABLE ${db}.${identifier(table)} DROP PARTITION ${Number(partition)}` });
    dropped.push(`${table}/${partition}`);
  }
  return dropped;
}
