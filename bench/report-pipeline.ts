/**
 * @module bench/report-pipeline
 * The event pipeline in the report: the figures of both stores (SQLite embedded, ClickHouse cluster),
 * the two ClickHouse targets, and the console lines.
 */
import type { ClickHousePipelineResult } from './pipeline-clickhouse.ts';
import type { BenchResults, Goal } from './report.ts';
import { fixed, table, whole } from './report-text.ts';

const SQLITE = 'SQLite (embedded)';
const CLICKHOUSE = 'ClickHouse (cluster)';
/** The scale the overview target is set at. */
const TARGET_REQUESTS = 10_000_000;
const TARGET_SUSTAIN_SECONDS = 60;

const count = (value: number) => value.toLocaleString('en');
const timing = (figure: { p50: number; p95: number; runs: number }) =>
  `p95 ${fixed(figure.p95, 1)} ms (p50 ${fixed(figure.p50, 1)}, ${figure.runs} runs)`;

/** The ClickHouse results of a run, or why there are none (saved results of older runs have no `result`). */
function clickhouseOf(bench: BenchResults): { result: ClickHousePipelineResult | null; reason: string } {
  const clickhouse = bench.pipeline?.clickhouse;
  return { result: clickhouse?.result ?? null, reason: clickhouse?.reason ?? 'not measured in this run' };
}

function sqliteRows(bench: BenchResults): string[][] {
  const sqlite = bench.pipeline?.sqlite;
  if (!sqlite) return [[SQLITE, 'projector and overview', 'failed in this run; see the errors below']];
  const { projector, overview } = sqlite;
  return [
    [
      SQLITE,
      `event log append, ${count(projector.events)} events in batches of 500`,
      `${whole(projector.appendEventsPerSecond)} events/s`,
    ],
    [
      SQLITE,
      'projector catch-up (log → requests, hourly rollups, key usage)',
      `${whole(projector.projectEventsPerSecond)} events/s`,
    ],
    [SQLITE, `data overview, all users, 30 days, over ${count(overview.requests)} requests`, timing(overview.allUsers)],
    [SQLITE, 'data overview, the busiest user, 30 days', timing(overview.oneUser)],
  ];
}

/** What the wait for ClickHouse's merges before the overview's timing found. */
function settledText(settled: { merges: number; seconds: number }): string {
  if (settled.merges === 0) return 'timed with no merge running on the server';
  return `timed once no merge ran on the server: ${settled.merges} were running, and the wait took ${fixed(settled.seconds, 0)} s`;
}

function clickhouseRows(result: ClickHousePipelineResult | null, reason: string): string[][] {
  if (!result) return [[CLICKHOUSE, 'projector events/s; data overview p95', reason]];
  const { projector, overview } = result;
  return [
    [
      CLICKHOUSE,
      `Kafka event log publish, ${count(projector.events)} events in batches of 1,000`,
      `${whole(projector.publishEventsPerSecond)} events/s`,
    ],
    [
      CLICKHOUSE,
      `projector (Kafka → ClickHouse raw rows and rollups, Redis key usage), sustained over ${fixed(projector.sustainedSeconds ?? 0, 0)} s from its first batch`,
      `${whole(projector.sustainedEventsPerSecond)} events/s (5 s windows: ${(projector.windows ?? []).map(whole).join(', ')}; all ${count(projector.events)} in ${fixed(projector.totalSeconds, 1)} s from start, joining the consumer group included${projector.cpuMicrosecondsPerEvent === undefined ? '' : `; the projector's process ${fixed(projector.cpuMicrosecondsPerEvent, 1)} µs of CPU per event`})`,
    ],
    [
      CLICKHOUSE,
      `data overview, all users, 30 days by day, over ${count(overview.requests)} requests${overview.settled ? ` (${settledText(overview.settled)})` : ''}`,
      timing(overview.allUsers),
    ],
    ...(overview.allUsersHourly
      ? [[CLICKHOUSE, 'data overview, all users, 30 days by hour', timing(overview.allUsersHourly)]]
      : []),
    [
      CLICKHOUSE,
      `data overview, the busiest user (${fixed(overview.busiestUserShare * 100, 0)}% of the requests), 30 days`,
      timing(overview.oneUser),
    ],
    [CLICKHOUSE, 'usage log, first page of 50, the busiest user', timing(overview.logsOneUser)],
    [CLICKHOUSE, 'usage log, first page of 50, all users', timing(overview.logsAllUsers)],
    ...(result.liveWrites?.levels ?? []).map((level) => [
      CLICKHOUSE,
      `a live write of ${count(result.liveWrites!.writeRequests)} requests (one second's), ${count(level.requestsInHour)} requests already in the hour`,
      `${whole(level.medianMs)} ms (median of ${level.writeMs.length}: ${level.writeMs.map(whole).join(', ')})`,
    ]),
  ];
}

export function pipelineSection(bench: BenchResults): string {
  if (!bench.pipeline) return '';
  const { result, reason } = clickhouseOf(bench);
  const sqlite = bench.pipeline.sqlite?.overview;
  const history = '200 users with a few heavy ones, 2 keys each, 5 models, spread over 30 days, 2% failed';
  return [
    '## Event pipeline',
    '',
    table(['store', 'figure', 'value'], [...sqliteRows(bench), ...clickhouseRows(result, reason)], [1, 2]),
    '',
    ...(sqlite
      ? [
          `SQLite: the overview data (${count(sqlite.requests)} requests, ${history}) was ${sqlite.method}; generating it took ${fixed(sqlite.generateSeconds, 1)} s. It made ${count(sqlite.rollupRows)} hourly rollup rows and a ${fixed(sqlite.databaseMegabytes, 0)} MB database.`,
          '',
        ]
      : []),
    ...(result
      ? [
          `ClickHouse ${result.clickhouseVersion}: the projector figure is the product's projector (\`startClusterProjector\`, what \`npm run projector\` runs) catching up on ${count(result.projector.requests)} requests' events published beforehand to a fresh namespace; every count is checked against ClickHouse afterwards. The overview data (${count(result.overview.requests)} requests, ${history}) was generated inside ClickHouse with \`INSERT … SELECT … FROM numbers(N)\` into the raw tables (${fixed(result.overview.rawSeconds, 1)} s), then its rollups were built by the projector's own back-fill statements (${fixed(result.overview.rollupSeconds, 1)} s): ${Object.entries(
            result.overview.rows,
          )
            .map(([name, rows]) => `${name} ${count(rows)} rows`)
            .join(', ')}; ${fixed(result.overview.megabytes, 0)} MB on disk.`,
          '',
        ]
      : []),
  ].join('\n');
}

/** The cluster targets: projector throughput, and the overview's p95 at ten million requests. */
export function pipelineGoals(bench: BenchResults): Goal[] {
  const { result } = clickhouseOf(bench);
  const notMeasured = 'not measured in this run';
  const projector = result?.projector;
  const overview = result?.overview;
  const worst = overview
    ? Math.max(overview.allUsers.p95, overview.allUsersHourly?.p95 ?? 0, overview.oneUser.p95)
    : Number.NaN;
  const atScale = overview !== undefined && overview.requests >= TARGET_REQUESTS;
  const sustained = projector !== undefined && (projector.sustainedSeconds ?? 0) >= TARGET_SUSTAIN_SECONDS;
  return [
    {
      goal: `projector ≥ 50,000 events/s into ClickHouse, sustained ${TARGET_SUSTAIN_SECONDS} s`,
      measured: projector
        ? `${whole(projector.sustainedEventsPerSecond)} events/s over ${fixed(projector.sustainedSeconds ?? 0, 0)} s${sustained ? '' : ' (a shorter span: a quick run)'}`
        : notMeasured,
      met: projector && sustained ? projector.sustainedEventsPerSecond >= 50_000 : null,
    },
    {
      goal: `data overview p95 ≤ 100 ms over ${count(TARGET_REQUESTS)} requests (ClickHouse)`,
      measured: overview
        ? `all users ${fixed(overview.allUsers.p95, 1)} ms by day${overview.allUsersHourly ? `, ${fixed(overview.allUsersHourly.p95, 1)} ms by hour` : ''}, busiest user ${fixed(overview.oneUser.p95, 1)} ms${atScale ? '' : ` (over ${count(overview.requests)} requests only: a quick run)`}`
        : notMeasured,
      met: atScale ? worst <= 100 : null,
    },
  ];
}

export function pipelineSummary(bench: BenchResults): string[] {
  if (!bench.pipeline) return [];
  const lines: string[] = [];
  const sqlite = bench.pipeline.sqlite;
  if (sqlite)
    lines.push(
      `-- pipeline (SQLite): append ${whole(sqlite.projector.appendEventsPerSecond)} events/s, projector ${whole(sqlite.projector.projectEventsPerSecond)} events/s; overview over ${count(sqlite.overview.requests)} requests: all users p95 ${fixed(sqlite.overview.allUsers.p95, 1)} ms, one user p95 ${fixed(sqlite.overview.oneUser.p95, 1)} ms`,
    );
  const { result, reason } = clickhouseOf(bench);
  lines.push(
    result
      ? `-- pipeline (ClickHouse): publish ${whole(result.projector.publishEventsPerSecond)} events/s, projector ${whole(result.projector.sustainedEventsPerSecond)} events/s; overview over ${count(result.overview.requests)} requests: all users p95 ${fixed(result.overview.allUsers.p95, 1)} ms, busiest user p95 ${fixed(result.overview.oneUser.p95, 1)} ms; usage log first page p95 ${fixed(result.overview.logsAllUsers.p95, 1)} ms`
      : `-- pipeline (ClickHouse): ${reason}`,
  );
  return lines;
}
