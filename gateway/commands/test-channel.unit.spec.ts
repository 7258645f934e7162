/**
 * The console's channel test connects, when only public addresses may be called, through the same
 * connect-time guard as the relay: a host name that resolves to loopback now is refused before any
 * byte is sent, whatever it resolved to when the route checked it.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import { encryptSecret } from '../security/upstream-key-cipher.ts';
import { testChannel } from './test-channel.ts';

describe('testChannel', () => {
  it('refuses a host that resolves to loopback when only public addresses may be called', async () => {
    let reached = 0;
    const server = createServer((request, response) => {
      reached += 1;
      request.resume();
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const key = randomBytes(32);
    const channel: ChannelDocument = {
      channelId: 'c1',
      name: 'rebound',
      type: 'openai',
      baseUrl: `http://localhost:${(server.address() as AddressInfo).port}/v1`,
      apiKeyCiphertext: encryptSecret('sk-upstream', key),
      models: ['gpt-4o-mini'],
      modelMapping: {},
      priority: 0,
      weight: 1,
      thinkingToContent: false,
      enabled: true,
      source: 'console',
      updatedAt: new Date().toISOString(),
    };
    try {
      const refused = await testChannel(channel, key, undefined, { publicOnly: true });
      expect(refused).toMatchObject({ ok: false, status: 0 });
      expect(refused.error).toContain('private, loopback or link-local');
      expect(reached).toBe(0);
      const allowed = await testChannel(channel, key);
      expect(allowed).toMatchObject({ ok: true, status: 200 });
      expect(reached).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
