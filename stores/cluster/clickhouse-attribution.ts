/**
 * @module stores/cluster/clickhouse-attribution
 * A request's attribution (contracts/attribution.ts) in ClickHouse's `requests` table: `end_user` and
 * `session_id` as plain `String` columns ('' when none), and the metadata as two parallel arrays,
 * `metadata_keys` and `metadata_values`. ClickHouse 18.16 (Debian's package, which the cluster runs
 * on) has neither `Map` nor `LowCardinality`; the arrays read on every release:
 * `metadata_values[indexOf(metadata_keys, 'feature')]` is one key's value ('' when absent), and
 * `ARRAY JOIN` gives a row per key. The columns are added by the migration (`addedColumns`), so
 * tables of any age get them; older rows hold '' and empty arrays.
 */
import type { UsageLogsQuery } from '../../contracts/console-api.ts';
import type { RequestCompleted } from '../../contracts/events/index.ts';
import { stringLiteral } from './clickhouse-sql.ts';
import { TsvRaw } from './clickhouse-tsv.ts';

export const attributionAddedColumns: ReadonlyArray<readonly [table: string, column: string, type: string]> = [
  ['requests', 'end_user', 'String'],
  ['requests', 'session_id', 'String'],
  ['requests', 'metadata_keys', 'Array(String)'],
  ['requests', 'metadata_values', 'Array(String)'],
];

export const attributionColumns = ['end_user', 'session_id', 'metadata_keys', 'metadata_values'] as const;

const noArray = new TsvRaw('[]');

/** An Array(String) value in a TabSeparated row: quoted elements, read by ClickHouse as it reads SQL literals. */
function tsvArray(texts: readonly string[]): TsvRaw {
  return texts.length === 0 ? noArray : new TsvRaw(`[${texts.map(stringLiteral).join(',')}]`);
}

/** The row's attribution values, in `attributionColumns` order. */
export function attributionRowValues(body: RequestCompleted['body']): Array<string | TsvRaw> {
  const attribution = body.attribution;
  if (attribution === undefined) return ['', '', noArray, noArray];
  const metadata = Object.entries(attribution.metadata ?? {});
  return [
    attribution.endUser ?? '',
    attribution.sessionId ?? '',
    tsvArray(metadata.map(([name]) => name)),
    tsvArray(metadata.map(([, value]) => value)),
  ];
}

/** One metadata key's value of a row, '' when it has none. */
export function metadataValueSql(name: string): string {
  return `metadata_values[indexOf(metadata_keys, ${stringLiteral(name)})]`;
}

/** Whether the query filters by attribution (the rollups cannot count those matches). */
export function filtersAttribution(query: Pick<UsageLogsQuery, 'end_user' | 'session_id' | 'metadata'>): boolean {
  return query.end_user !== undefined || query.session_id !== undefined || query.metadata !== undefined;
}

/** The usage log's attribution filters over the raw `requests` table. */
export function attributionConditions(query: Pick<UsageLogsQuery, 'end_user' | 'session_id' | 'metadata'>): string[] {
  const conditions: string[] = [];
  if (query.end_user !== undefined) conditions.push(`end_user = ${stringLiteral(query.end_user)}`);
  if (query.session_id !== undefined) conditions.push(`session_id = ${stringLiteral(query.session_id)}`);
  for (const [name, value] of Object.entries(query.metadata ?? {})) {
    conditions.push(`${metadataValueSql(name)} = ${stringLiteral(value)}`);
  }
  return conditions;
}

/** The log entry's attribution from a row's columns. */
export function attributionOfRow(row: Record<string, unknown>) {
  const keys = (row['metadata_keys'] as string[] | undefined) ?? [];
  const values = (row['metadata_values'] as string[] | undefined) ?? [];
  return {
    end_user: row['end_user'] ? String(row['end_user']) : null,
    session_id: row['session_id'] ? String(row['session_id']) : null,
    metadata: keys.length === 0 ? null : Object.fromEntries(keys.map((key, index) => [key, values[index] ?? ''])),
  };
}
