/**
 * @module test/fuzz/fuzz-support
 * Raw HTTP for the fuzz suites (bytes exactly as given: invalid UTF-8, any content type, any header),
 * a tally of outcomes by status, and the report under test/artifacts/fuzz-report/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** the parsed JSON body, or undefined when the body is not JSON */
  json: any;
}

export function rawRequest(
  baseUrl: string,
  method: string,
  requestPath: string,
  headers: Record<string, string | number>,
  body?: Buffer | string,
): Promise<RawResponse> {
  const url = new URL(requestPath, baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { method, hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Counts outcomes of one property: runs and answers by status. */
export class Tally {
  readonly properties: Record<string, { runs: number; statuses: Record<string, number> }> = {};

  record(property: string, status: number): void {
    this.properties[property] ??= { runs: 0, statuses: {} };
    const entry = this.properties[property];
    entry.runs += 1;
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
  }

  get total(): number {
    return Object.values(this.properties).reduce((sum, entry) => sum + entry.runs, 0);
  }

  write(suite: string, extra: Record<string, unknown>): void {
    const directory = path.resolve('test/artifacts/fuzz-report');
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      path.join(directory, `${suite}.json`),
      `${JSON.stringify({ suite, total: this.total, properties: this.properties, ...extra }, null, 2)}\n`,
    );
  }
}

export function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return Math.round(process.memoryUsage().heapUsed / 1_048_576);
}

/** JSON text nested `depth` levels deep, built as a string (the runtime's own stack never recurses on it). */
export function deeplyNested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
