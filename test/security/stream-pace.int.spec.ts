/**
 * A key's streams together relay no faster than STREAM_BYTES_PER_SECOND_PER_KEY on a node: an
 * upstream that streams as fast as the network goes is read at the key's rate instead (so a few such
 * streams cannot take the cores everyone else's requests need), every frame still arrives, and another
 * key's stream beside them goes at its own pace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';

const RATE = 100 * 1024;
/** Frames of about 1 KB each: 200 of them are two seconds' worth of the rate. */
const FRAMES = 200;
const WORDS = 'many words '.repeat(90);

function chatFrames(): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'flood', choices: [{ index: 0, delta, finish_reason: finish }] })}`;
  return [
    chunk({ role: 'assistant', content: '' }),
    ...Array.from({ length: FRAMES }, () => chunk({ content: WORDS })),
    chunk({}, 'stop'),
    'data: [DONE]',
  ];
}

let harness: Harness;
let upstream: ScriptedUpstream;
const keys: string[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream(() => ({ status: 200, frames: chatFrames() }));
  harness = await startHarness({
    environment: { STREAM_BYTES_PER_SECOND_PER_KEY: String(RATE) },
    extraChannels: [{ name: 'flood', type: 'openai', models: ['flood'], baseUrl: `${upstream.url}/v1` }],
  });
  const client = new ConsoleClient(harness.baseUrl);
  await client.register('stream-pace@example.com');
  keys.push((await client.createToken('hostile')).key, (await client.createToken('other')).key);
});
afterAll(async () => {
  await harness.stop();
  await upstream.close();
});

async function stream(key: string): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'flood', stream: true, messages: [{ role: 'user', content: 'Go.' }] }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, ms: performance.now() - started };
}

describe('STREAM_BYTES_PER_SECOND_PER_KEY', () => {
  it('relays a key’s streams together at its rate, whole, and another key’s at its own', async () => {
    const [hostileKey, otherKey] = keys as [string, string];
    const order: string[] = [];
    const timed = (name: string, key: string) =>
      stream(key).then((result) => {
        order.push(name);
        return result;
      });
    const [first, second, other] = await Promise.all([
      timed('first', hostileKey),
      timed('second', hostileKey),
      timed('other', otherKey),
    ]);
    // Two streams of ~220 KB on one key: ~440 KB at 100 KiB/s, after the first second's worth.
    const upstreamBytes = chatFrames().join('\n\n').length * 2;
    const floorMs = ((upstreamBytes - RATE) / RATE) * 1000 * 0.8;
    expect(Math.max(first.ms, second.ms)).toBeGreaterThan(floorMs);
    for (const { text } of [first, second, other]) {
      expect(text.match(/many words/g)!.length).toBe(FRAMES * 90);
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    }
    expect(order[0]).toBe('other');
  });
});
