/**
 * @module test/support/free-port
 * A loopback port no one listens on right now, for a server whose settings must name its port before
 * it starts (PUBLIC_URL, an OpenID client's redirect URL).
 */
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
