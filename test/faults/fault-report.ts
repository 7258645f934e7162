/**
 * @module test/faults/fault-report
 * The figures of one fault case (requests sent, succeeded, failed, events lost and counted twice) and
 * the report file test/artifacts/faults/<suite>.json that docs/reliability.md quotes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface FaultFigures {
  case: string;
  sent: number;
  succeeded: number;
  failed: number;
  /** 5xx answers to requests whose upstream was healthy */
  healthyUpstream5xx: number;
  /** requests with no request.completed event */
  lost: number;
  /** requests with more than one request.completed event (or usage counted twice) */
  doubleCounted: number;
  statuses: Record<string, number>;
  note?: string;
  /** the first few failed requests, each with the start of what it was told */
  failures?: string[];
}

export class FaultReport {
  readonly cases: FaultFigures[] = [];

  add(figures: FaultFigures): void {
    this.cases.push(figures);
    console.info(`fault case: ${JSON.stringify(figures)}`);
  }

  write(suite: string): void {
    const directory = path.resolve('test/artifacts/faults');
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, `${suite}.json`), `${JSON.stringify(this.cases, null, 2)}\n`);
  }
}

/** Counts per request id: ids without an event (lost) and ids with more than one (double-counted). */
export function compareCounts(
  sentIds: string[],
  counted: Map<string, number>,
): { lost: number; doubleCounted: number } {
  let lost = 0;
  let doubleCounted = 0;
  for (const id of sentIds) {
    const count = counted.get(id) ?? 0;
    if (count === 0) lost += 1;
    if (count > 1) doubleCounted += 1;
  }
  return { lost, doubleCounted };
}
