/**
 * @module gateway/connection-limits
 * Caps the sockets the process and each client address keep open, so that one client holding sockets
 * open (slowly sent bodies, idle keep-alives) cannot use up the file descriptors that every other client,
 * the upstream calls and the store need. The process-wide cap is Node's own `maxConnections` (the socket
 * is closed before any JavaScript runs for it); the per-address one is counted here, once per connection
 * and never per request.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

const REFUSAL_BODY = 'Too many connections from this address; close some before opening more.\n';
/** Sent before the request is read: nothing of it is needed to refuse the socket. */
const REFUSAL = Buffer.from(
  'HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\n' +
    `retry-after: 1\r\ncontent-length: ${Buffer.byteLength(REFUSAL_BODY)}\r\n\r\n${REFUSAL_BODY}`,
);

function ignore(): void {}

/**
 * The key one client is counted under: the IPv4 address (also when IPv4-mapped), or the /64 prefix of
 * an IPv6 address, since one host is usually given a whole /64 and could spread over it.
 */
export function clientAddressKey(address: string): string {
  const zoneless = address.split('%')[0]!.toLowerCase();
  if (!zoneless.includes(':')) return zoneless;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(zoneless);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = zoneless.split('::');
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]));
  const headGroups = groupsOf(head);
  const tailGroups = tail === undefined ? [] : groupsOf(tail);
  const groups = [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

export function limitConnections(
  server: Server,
  { maxConnections, maxConnectionsPerAddress }: { maxConnections: number; maxConnectionsPerAddress: number },
): void {
  if (maxConnections > 0) server.maxConnections = maxConnections;
  if (maxConnectionsPerAddress <= 0) return;
  const open = new Map<string, number>();
  // The HTTP server takes its sockets from its own 'connection' listener: it is called here only for the
  // sockets let in, so that a refused socket never gets a parser or reaches a request handler.
  const [serveConnection] = server.listeners('connection') as Array<(socket: Socket) => void>;
  if (!serveConnection) throw new Error('the HTTP server has no connection listener to guard');
  server.removeListener('connection', serveConnection);
  server.on('connection', (socket: Socket) => {
    if (socket.remoteAddress === undefined) {
      // Gone before it was accepted.
      socket.destroy();
      return;
    }
    const key = clientAddressKey(socket.remoteAddress);
    const count = (open.get(key) ?? 0) + 1;
    if (count > maxConnectionsPerAddress) {
      refuse(socket);
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
    serveConnection.call(server, socket);
  });
}

/** A short 503, then the descriptor is released as soon as the answer is handed to the kernel. */
function refuse(socket: Socket): void {
  socket.on('error', ignore);
  socket.end(REFUSAL, () => socket.destroy());
}
