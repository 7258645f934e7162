/**
 * The connect-time address guard: a host name that resolves (now) to a loopback, private or
 * link-local address is refused at the connection itself, so a channel's host re-pointed after it was
 * saved is not called; a public answer passes in the form `net.connect` asked for.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ClientAbort } from '../relay/client-abort.ts';
import { transportError, UpstreamClient } from '../relay/upstream-client.ts';
import { type LookupFunction, PRIVATE_ADDRESS_CODE, publicOnlyLookup } from './public-lookup.ts';

const answers =
  (table: Record<string, Array<{ address: string; family: number }>>): LookupFunction =>
  (host, _options, callback) =>
    callback(null, table[host] ?? []);

function lookUp(lookup: LookupFunction, host: string, all: boolean) {
  return new Promise<{ error: Error | null; address: unknown; family?: number | undefined }>((resolve) =>
    lookup(host, { all }, (error, address, family) => resolve({ error, address, family })),
  );
}

describe('publicOnlyLookup', () => {
  const lookup = publicOnlyLookup(
    answers({
      'public.example': [{ address: '93.184.216.34', family: 4 }],
      'mixed.example': [
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
      'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
    }),
  );

  it('passes public answers, one or all as asked', async () => {
    expect(await lookUp(lookup, 'public.example', false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookUp(lookup, 'public.example', true)).toEqual({
      error: null,
      address: [{ address: '93.184.216.34', family: 4 }],
      family: undefined,
    });
  });

  it('refuses a host with any private answer, IPv4-mapped ones included', async () => {
    for (const host of ['mixed.example', 'mapped.example']) {
      const { error } = await lookUp(lookup, host, false);
      expect(error).toMatchObject({ code: PRIVATE_ADDRESS_CODE, host });
    }
  });
});

describe('an upstream call that must reach a public address', () => {
  it('is refused before any byte when the host resolves to loopback, or is a private literal', async () => {
    let reached = 0;
    const server = createServer((_request, response) => {
      reached += 1;
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const client = new UpstreamClient({ headersTimeoutMs: 5_000, idleTimeoutMs: 5_000 });
    try {
      for (const host of ['localhost', '127.0.0.1']) {
        const url = `http://${host}:${port}/v1/chat/completions`;
        const call = client.sendBuffered({ url, headers: {}, body: '{}' }, new ClientAbort(), { publicOnly: true });
        const error = await call.then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(transportError(error)).toMatchObject({ code: 'upstream_address_refused', upstreamStatus: 0 });
      }
      expect(reached).toBe(0);
      // The same host for a channel the operator's config names (not guarded) is reached.
      const reply = await client.sendBuffered(
        { url: `http://localhost:${port}/v1/chat/completions`, headers: {}, body: '{}' },
        new ClientAbort(),
      );
      expect(reply.statusCode).toBe(200);
      expect(reached).toBe(1);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
