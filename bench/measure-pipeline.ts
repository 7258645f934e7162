/**
 * @module bench/measure-pipeline
 * The bench's event pipeline step: the embedded store's figures (bench/pipeline.ts), then the cluster
 * store's (bench/pipeline-clickhouse.ts). A failure is recorded in `errors` and fails the run; servers
 * that do not answer only make the ClickHouse entry "not available".
 */
import { measureSqliteOverview, measureSqliteProjector } from './pipeline.ts';
import { measureClickHousePipeline } from './pipeline-clickhouse.ts';
import type { PipelineResults, Plan } from './report.ts';

const describe = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error));

export async function measurePipeline(
  plan: Plan,
  log: (message: string) => void,
  errors: string[],
): Promise<PipelineResults> {
  const pipeline: PipelineResults = { sqlite: null, clickhouse: { result: null, reason: 'not measured' } };
  try {
    log(`pipeline: SQLite projector, ${plan.projectorRequests.toLocaleString('en')} requests`);
    const projector = await measureSqliteProjector(plan.projectorRequests);
    log(
      `  append ${projector.appendEventsPerSecond.toFixed(0)} events/s, project ${projector.projectEventsPerSecond.toFixed(0)} events/s`,
    );
    log(`pipeline: SQLite overview over ${plan.overviewRequests.toLocaleString('en')} requests`);
    const overview = await measureSqliteOverview(plan.overviewRequests, plan.overviewRuns, plan.overviewBudgetMs);
    log(
      `  generated in ${overview.generateSeconds.toFixed(1)} s, ${overview.rollupRows} rollup rows; all users p95 ${overview.allUsers.p95.toFixed(1)} ms, one user p95 ${overview.oneUser.p95.toFixed(1)} ms`,
    );
    pipeline.sqlite = { projector, overview };
  } catch (error) {
    log(`pipeline: FAILED: ${describe(error)}`);
    errors.push(`pipeline: ${describe(error)}`);
  }
  try {
    pipeline.clickhouse = await measureClickHousePipeline(plan.clickhouse, log);
    if (pipeline.clickhouse.reason) log(`pipeline: ClickHouse ${pipeline.clickhouse.reason}`);
  } catch (error) {
    log(`pipeline: ClickHouse FAILED: ${describe(error)}`);
    errors.push(`pipeline (ClickHouse): ${describe(error)}`);
    pipeline.clickhouse = { result: null, reason: `failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  return pipeline;
}
