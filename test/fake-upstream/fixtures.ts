/**
 * Loads the recorded-shape fixtures in `__fixtures__/` by name, synchronously and cached.
 *
 * A name is the file name without its extension, e.g. `openai-text` or `anthropic-text-stream`.
 * `<name>.json` is a non-streamed reply: either the bare 200 body, or an envelope
 * `{ "status": 429, "headers": {...}, "body": {...} }` for anything else (see README.md).
 * `<name>.chunks.txt` is a streamed reply: one SSE data payload per line.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `openai-responses`: OpenAI's Responses API (`POST /v1/responses`), fixtures named `openai-responses-<case>` */
export type Provider = 'openai' | 'anthropic' | 'openai-responses' | AzureProvider;
/** Azure OpenAI's deployment routes (`azure-<case>`) and its v1 Responses route (azure-routes.ts) */
export type AzureProvider = 'azure' | 'azure-responses';

export interface JsonFixture {
  kind: 'json';
  name: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface StreamFixture {
  kind: 'stream';
  name: string;
  /** Each entry is one SSE `data:` payload exactly as written in the file (JSON text or `[DONE]`). */
  chunks: readonly string[];
}

export type Fixture = JsonFixture | StreamFixture;

const fixturesDirectory = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const jsonSuffix = '.json';
const streamSuffix = '.chunks.txt';
const cache = new Map<string, Fixture>();
let knownNames: ReadonlySet<string> | undefined;

/** Every fixture name present on disk, read once. */
export function listFixtures(): ReadonlySet<string> {
  knownNames ??= new Set(
    readdirSync(fixturesDirectory)
      .filter((file) => file.endsWith(jsonSuffix) || file.endsWith(streamSuffix))
      .map((file) => file.slice(0, file.endsWith(jsonSuffix) ? -jsonSuffix.length : -streamSuffix.length)),
  );
  return knownNames;
}

export function hasFixture(name: string): boolean {
  return listFixtures().has(name);
}

export function loadFixture(name: string): Fixture {
  const cached = cache.get(name);
  if (cached) return cached;
  const fixture = readFixture(name);
  cache.set(name, fixture);
  return fixture;
}

export function loadJsonFixture(name: string): JsonFixture {
  const fixture = loadFixture(name);
  if (fixture.kind !== 'json') throw new Error(`Fixture "${name}" is a stream, not a JSON reply`);
  return fixture;
}

export function loadStreamFixture(name: string): StreamFixture {
  const fixture = loadFixture(name);
  if (fixture.kind !== 'stream') throw new Error(`Fixture "${name}" is a JSON reply, not a stream`);
  return fixture;
}

/** The JSON payloads of a stream fixture, parsed; `[DONE]` and other non-JSON lines are left out. */
export function parseStreamChunks(name: string): unknown[] {
  return loadStreamFixture(name)
    .chunks.filter((chunk) => chunk.startsWith('{'))
    .map((chunk) => JSON.parse(chunk) as unknown);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readFixture(name: string): Fixture {
  const path = `${fixturesDirectory}${name}`;
  if (existsSync(`${path}${streamSuffix}`)) {
    // Blank lines are ignored so a trailing newline or a separating empty line never becomes a chunk.
    const chunks = readFileSync(`${path}${streamSuffix}`, 'utf8')
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line) => line.length > 0);
    return { kind: 'stream', name, chunks };
  }
  if (!existsSync(`${path}${jsonSuffix}`)) {
    throw new Error(`No fixture named "${name}" in ${fixturesDirectory}`);
  }
  const parsed: unknown = JSON.parse(readFileSync(`${path}${jsonSuffix}`, 'utf8'));
  if (isEnvelope(parsed)) {
    return { kind: 'json', name, status: parsed.status, headers: parsed.headers ?? {}, body: parsed.body };
  }
  return { kind: 'json', name, status: 200, headers: {}, body: parsed };
}

interface Envelope {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

// A provider body never has both a numeric top-level `status` and a `body`, so the shape alone tells them apart.
function isEnvelope(value: unknown): value is Envelope {
  return isRecord(value) && typeof value.status === 'number' && 'body' in value;
}
