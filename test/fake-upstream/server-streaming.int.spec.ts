/** The fake's streaming over raw HTTP: OpenAI usage dropping, delays, cut connections and hangs. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadStreamFixture, parseStreamChunks } from './fixtures.ts';
import { anthropicHeaders, openaiHeaders, post, readEvents, readUntilCut, userHello } from './raw-http.ts';
import { type FakeUpstream, startFakeUpstream } from './server.ts';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

const postOpenai = (body: object) => post(`${upstream.url}/v1/chat/completions`, body, openaiHeaders);
const streamOpenaiText = (streamOptions?: object) =>
  postOpenai({ model: 'any', stream: true, stream_options: streamOptions, messages: [userHello] });

describe('OpenAI stream usage', () => {
  it('sends the usage chunk and the usage:null keys when include_usage is true', async () => {
    const events = (await readEvents(await streamOpenaiText({ include_usage: true }))).map((event) => event.data);
    expect(events).toEqual(loadStreamFixture('openai-text-stream').chunks);
    expect(events.at(-1)).toBe('[DONE]');
  });

  it.each([undefined, { include_usage: false }])('drops both when stream_options is %j', async (streamOptions) => {
    const events = (await readEvents(await streamOpenaiText(streamOptions))).map((event) => event.data);
    const chunks = events
      .filter((data) => data !== '[DONE]')
      .map((data) => JSON.parse(data) as Record<string, unknown>);
    expect(chunks).toHaveLength(parseStreamChunks('openai-text-stream').length - 1);
    expect(chunks.filter((chunk) => 'usage' in chunk)).toEqual([]);
    expect(events.at(-1)).toBe('[DONE]');
  });
});

describe('timing and failures', () => {
  it('waits delayFirstByteMs before the head and chunkDelayMs between chunks', async () => {
    upstream.next({ fixture: 'text', chunkDelayMs: 20, delayFirstByteMs: 50 });
    const started = performance.now();
    const body = { model: 'any', max_tokens: 64, stream: true, messages: [userHello] };
    const response = await post(`${upstream.url}/v1/messages`, body, anthropicHeaders);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    const events = await readEvents(response);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45 + (events.length - 1) * 20 - 10);
  });

  it('destroys the socket after cutAfterChunks chunks', async () => {
    upstream.next({ fixture: 'text', cutAfterChunks: 3 });
    const { text, failed } = await readUntilCut(await streamOpenaiText());
    expect(failed).toBe(true);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(3);
  });

  it('cuts a JSON reply after its body without ending the response', async () => {
    upstream.next({ fixture: 'text', cutAfterChunks: 1 });
    const { failed } = await readUntilCut(await postOpenai({ model: 'any', messages: [userHello] }));
    expect(failed).toBe(true);
  });

  it('resets the connection before any byte with cutAfterChunks 0', async () => {
    upstream.next({ fixture: 'text', cutAfterChunks: 0 });
    await expect(postOpenai({ model: 'any', messages: [userHello] })).rejects.toThrow();
  });

  it('hangs until the client gives up, and close() still returns', async () => {
    const hanging = await startFakeUpstream();
    const request = () =>
      fetch(`${hanging.url}/v1/chat/completions`, {
        method: 'POST',
        headers: openaiHeaders,
        body: '{}',
        signal: AbortSignal.timeout(100),
      });
    hanging.next({ fixture: 'text', hang: true });
    await expect(request()).rejects.toThrow(/timeout|aborted/i);
    hanging.next({ fixture: 'text', hang: true });
    const stillHanging = fetch(`${hanging.url}/v1/chat/completions`, {
      method: 'POST',
      headers: openaiHeaders,
      body: '{}',
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await hanging.close();
    await expect(stillHanging).rejects.toThrow();
    expect(hanging.requests).toHaveLength(2);
  });
});
