/**
 * Writes a fixture to the wire: JSON replies in one piece, streams as one `res.write` per SSE event so
 * the gateway sees real chunk boundaries, with optional delays, a dropped connection or no answer at all.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRecord, type JsonFixture, type Provider, type StreamFixture } from './fixtures.ts';

export interface ReplyTiming {
  chunkDelayMs: number;
  /** 0 destroys the socket before any byte; N >= 1 sends the head and N chunks, then destroys it. */
  cutAfterChunks?: number;
  delayFirstByteMs?: number;
  delayFirstChunkMs?: number;
  hang?: boolean;
  status?: number;
}

export async function writeJsonReply(
  response: ServerResponse,
  fixture: JsonFixture,
  headers: Record<string, string>,
  timing: ReplyTiming,
  signal: AbortSignal,
): Promise<void> {
  if (!(await waitBeforeFirstByte(response, timing, signal))) return;
  const body = JSON.stringify(fixture.body);
  response.writeHead(timing.status ?? fixture.status, {
    ...headers,
    ...fixture.headers,
    'content-type': 'application/json',
  });
  if (timing.cutAfterChunks === undefined) {
    response.end(body);
    return;
  }
  // The body is one chunk: send it, then drop the connection instead of leaving it reusable.
  response.write(body);
  await destroyAfterFlush(response);
}

export async function writeStreamReply(
  response: ServerResponse,
  frames: readonly string[],
  headers: Record<string, string>,
  timing: ReplyTiming,
  signal: AbortSignal,
  contentType = 'text/event-stream; charset=utf-8',
): Promise<void> {
  if (!(await waitBeforeFirstByte(response, timing, signal))) return;
  response.writeHead(timing.status ?? 200, {
    ...headers,
    'content-type': contentType,
    'cache-control': 'no-cache',
  });
  if (timing.delayFirstChunkMs) {
    response.flushHeaders();
    if (!(await pause(timing.delayFirstChunkMs, signal))) return;
  }
  for (const [index, frame] of frames.entries()) {
    if (index === timing.cutAfterChunks) return destroyAfterFlush(response);
    if (index > 0 && timing.chunkDelayMs > 0 && !(await pause(timing.chunkDelayMs, signal))) return;
    if (signal.aborted) return;
    response.write(frame);
  }
  if (timing.cutAfterChunks !== undefined) return destroyAfterFlush(response);
  response.end();
}

const frameCache = new Map<string, readonly string[]>();

/** SSE events for a stream fixture, framed the way the provider frames them, cached per variant. */
export function streamFrames(provider: Provider, fixture: StreamFixture, includeUsage: boolean): readonly string[] {
  const key = `${fixture.name}|${includeUsage}`;
  let frames = frameCache.get(key);
  if (!frames) {
    // The Responses API names each event in an `event:` line, as Anthropic does.
    frames =
      provider === 'openai' || provider === 'azure'
        ? openaiFrames(fixture.chunks, includeUsage)
        : anthropicFrames(fixture.chunks);
    frameCache.set(key, frames);
  }
  return frames;
}

function openaiFrames(chunks: readonly string[], includeUsage: boolean): string[] {
  const frames: string[] = [];
  for (const chunk of chunks) {
    const payload = includeUsage ? chunk : withoutUsage(chunk);
    if (payload !== undefined) frames.push(`data: ${payload}\n\n`);
  }
  return frames;
}

/**
 * Without `stream_options.include_usage` OpenAI sends neither the usage-only chunk (`choices: []`) nor the
 * `"usage": null` key on the other chunks; returns undefined for a chunk to drop.
 */
function withoutUsage(chunk: string): string | undefined {
  const parsed = parseJson(chunk);
  if (!isRecord(parsed) || !('usage' in parsed)) return chunk;
  if (Array.isArray(parsed.choices) && parsed.choices.length === 0) return undefined;
  if (parsed.usage !== null) return chunk;
  const { usage: _usage, ...rest } = parsed;
  return JSON.stringify(rest);
}

function anthropicFrames(chunks: readonly string[]): string[] {
  // Anthropic names every event after its payload's `type`; the SDKs dispatch on that name.
  return chunks.map((chunk) => {
    const parsed = parseJson(chunk);
    const eventName = isRecord(parsed) && typeof parsed.type === 'string' ? parsed.type : undefined;
    return eventName ? `event: ${eventName}\ndata: ${chunk}\n\n` : `data: ${chunk}\n\n`;
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Returns false when the reply must not go on (hang, cut before the first byte, or client gone). */
async function waitBeforeFirstByte(
  response: ServerResponse,
  timing: ReplyTiming,
  signal: AbortSignal,
): Promise<boolean> {
  if (timing.delayFirstByteMs && !(await pause(timing.delayFirstByteMs, signal))) return false;
  if (timing.hang) {
    await pause(Number.POSITIVE_INFINITY, signal);
    return false;
  }
  if (timing.cutAfterChunks === 0) {
    response.socket?.destroy();
    return false;
  }
  return !signal.aborted;
}

/** Resolves true after the delay, false as soon as the client or the fake closes the connection. */
async function pause(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  // Timers cap at 2^31-1 ms; a hang is just a very long pause that the abort ends.
  const capped = Math.min(milliseconds, 2_147_483_647);
  try {
    await sleep(capped, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

async function destroyAfterFlush(response: ServerResponse): Promise<void> {
  const socket = response.socket;
  if (!socket) return;
  // An empty socket write calls back once everything queued before it is flushed, so the cut lands after the chunks.
  await new Promise<void>((resolve) => socket.write('', () => resolve()));
  socket.destroy();
}
