/**
 * @module bench/capture-projector
 * The embedded projector's rate with payload capture on and off: the same generated requests appended
 * to a fresh embedded store, alone and each followed by its `payload.captured` event (the 66 KB agent
 * body and a reply, compressed as the relay does), then timed until projected. Also the bytes the
 * SQLite file grew by per captured request, and what one payload weighs before and after zstd.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { zstdCompressSync } from 'node:zlib';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { newEvent } from '../gateway/events/new-event.ts';
import { createEmbeddedStores } from '../stores/embedded/index.ts';
import { generatedTraffic } from '../test/support/generated-traffic.ts';
import { agentBody } from './agent-body.ts';
import { OPENAI_MODEL } from './targets.ts';

export interface ProjectorRate {
  requests: number;
  /** requests projected per second, capture off and on */
  offPerSecond: number;
  onPerSecond: number;
  /** one payload document (the agent body and a reply) before and after compression */
  rawBytes: number;
  storedBytes: number;
  /** what the SQLite file (with its WAL) grew by per request, capture off and on */
  fileBytesPerRequestOff: number;
  fileBytesPerRequestOn: number;
}

const APPEND_BATCH = 100;

/** The payload document of one agent request, as the relay builds it (payload-capture.ts). */
function agentDocument(): Buffer {
  const reply = {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    model: OPENAI_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Done. '.repeat(40) }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 16_000, completion_tokens: 80, total_tokens: 16_080 },
  };
  const request = agentBody(OPENAI_MODEL);
  const document = {
    endpoint: 'chat.completions',
    stream: false,
    status: 200,
    request: { json: JSON.parse(request), bytes: Buffer.byteLength(request), truncated: false },
    reply: { json: reply, bytes: JSON.stringify(reply).length, truncated: false },
  };
  return Buffer.from(JSON.stringify(document));
}

function fileBytes(directory: string): number {
  const size = (name: string) => {
    try {
      return statSync(path.join(directory, name)).size;
    } catch {
      return 0;
    }
  };
  return size('gateway.db') + size('gateway.db-wal');
}

async function timedProjection(
  events: GatewayEvent[],
  requests: number,
): Promise<{ perSecond: number; bytes: number }> {
  const directory = mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'capture-projector-'));
  const stores = await createEmbeddedStores(directory);
  try {
    await stores.sync.caughtUp();
    const before = fileBytes(directory);
    const started = performance.now();
    for (let index = 0; index < events.length; index += APPEND_BATCH) {
      await stores.events.append(events.slice(index, index + APPEND_BATCH));
    }
    await stores.sync.caughtUp();
    const seconds = (performance.now() - started) / 1000;
    return { perSecond: requests / seconds, bytes: (fileBytes(directory) - before) / requests };
  } finally {
    await stores.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function measureCaptureProjector(requests = 2_000): Promise<ProjectorRate> {
  const traffic = generatedTraffic(requests, Date.now() - 3_600_000, 3_000_000, 7, true);
  const raw = agentDocument();
  const packed = zstdCompressSync(raw);
  const data = packed.toString('base64');
  const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const captured = traffic.flatMap((event): GatewayEvent[] =>
    event.type === 'request.completed'
      ? [
          event,
          newEvent('payload.captured', {
            requestId: event.body.requestId,
            userId: event.body.userId ?? 'u',
            tokenId: event.body.tokenId ?? 't',
            expiresAt,
            encoding: 'zstd',
            data,
            rawBytes: raw.length,
            storedBytes: packed.length,
          }),
        ]
      : [event],
  );
  const off = await timedProjection(traffic, requests);
  const on = await timedProjection(captured, requests);
  return {
    requests,
    offPerSecond: off.perSecond,
    onPerSecond: on.perSecond,
    rawBytes: raw.length,
    storedBytes: packed.length,
    fileBytesPerRequestOff: off.bytes,
    fileBytesPerRequestOn: on.bytes,
  };
}
