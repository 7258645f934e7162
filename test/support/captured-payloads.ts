/**
 * @module test/support/captured-payloads
 * Helpers for the payload capture tests, on either store: a call through the relay with a marker in
 * its body, and the wait for its payload (published after the reply, then projected).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { zstdDecompressSync } from 'node:zlib';
import Database from 'better-sqlite3';
import type { ConsoleClient } from './console-client.ts';

export interface RelayedCall {
  requestId: string;
  status: number;
  text: string;
}

/** A Chat Completions call (or Messages with `anthropic`) with `content` as its one user message. */
export async function relay(
  baseUrl: string,
  key: string,
  content: string,
  { stream = false, anthropic = false }: { stream?: boolean; anthropic?: boolean } = {},
): Promise<RelayedCall> {
  const path = anthropic ? '/v1/messages' : '/v1/chat/completions';
  const model = anthropic ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      ...(anthropic && { 'anthropic-version': '2023-06-01' }),
    },
    body: JSON.stringify({ model, max_tokens: 50, stream, messages: [{ role: 'user', content }] }),
  });
  return { requestId: response.headers.get('x-request-id')!, status: response.status, text: await response.text() };
}

/** The payload's answer once it is there (200), or the last answer after `timeoutMs`. */
export async function payloadOf(
  client: ConsoleClient,
  requestId: string,
  timeoutMs = 5_000,
): Promise<{ status: number; body: any }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await client.call('GET', `/api/usage/logs/${requestId}/payload`);
    if (answer.status === 200 || Date.now() > deadline) return answer;
    await sleep(50);
  }
}

/**
 * Whether `marker` is kept anywhere under an embedded data directory: in any file's raw bytes, or in
 * any compressed payload (a table row, or the `data` of a logged event) once decompressed.
 */
export function keptInDataDirectory(dataDirectory: string, marker: string): boolean {
  const files = readdirSync(dataDirectory, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const raw = files.map((entry) => readFileSync(path.join(entry.parentPath, entry.name)).toString('latin1'));
  if (raw.some((text) => text.includes(marker))) return true;
  const database = new Database(path.join(dataDirectory, 'gateway.db'), { readonly: true });
  try {
    const rows = database.prepare('SELECT data FROM captured_payloads').pluck().all() as Buffer[];
    const logged = (database.prepare('SELECT payload FROM event_batches').pluck().all() as string[])
      .flatMap((text) => JSON.parse(text) as Array<{ type: string; body: { data?: string } }>)
      .filter((event) => event.type === 'payload.captured' && event.body.data)
      .map((event) => Buffer.from(event.body.data!, 'base64'));
    return [...rows, ...logged].some((data) => zstdDecompressSync(data).toString('utf8').includes(marker));
  } finally {
    database.close();
  }
}
