/**
 * The upstream client's URL split (it calls undici with origin and path, not a URL to parse again)
 * and the abort handle undici takes as a signal.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ClientAbort } from './client-abort.ts';
import { splitUrl, UpstreamClient } from './upstream-client.ts';

describe('splitUrl', () => {
  it.each([
    ['https://api.openai.com/v1/chat/completions', 'https://api.openai.com', '/v1/chat/completions'],
    ['http://127.0.0.1:8080/v1/messages', 'http://127.0.0.1:8080', '/v1/messages'],
    [
      'https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21',
      'https://x.openai.azure.com',
      '/openai/deployments/d/chat/completions?api-version=2024-10-21',
    ],
    ['http://[::1]:9000/v1/chat/completions', 'http://[::1]:9000', '/v1/chat/completions'],
    ['https://host.example', 'https://host.example', '/'],
  ])('%s', (url, origin, path) => {
    expect(splitUrl(url)).toEqual({ origin, path });
  });
});

describe('ClientAbort as an undici signal', () => {
  it('ends a call still waiting for the upstream, as an aborted request', async () => {
    const server = createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    const client = new UpstreamClient({ headersTimeoutMs: 30_000, idleTimeoutMs: 30_000 });
    const abort = new ClientAbort();
    const call = client.send({ url, headers: {}, body: '{}' }, abort);
    setTimeout(() => abort.abort(), 50);
    const started = performance.now();
    await expect(call).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(abort.aborted).toBe(true);
    await client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});
