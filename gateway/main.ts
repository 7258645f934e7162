/**
 * @module gateway/main
 * `npm start`: gateway, projector and console in one process on the embedded store.
 */
import type { Server } from 'node:http';
import { flushLogs, log } from '../platform/log.ts';
import { readSettings } from './config/settings.ts';
import { createRuntime } from './runtime.ts';

/** Why the port could not be had, in one line that says what to do about it. */
function listenFailure(error: NodeJS.ErrnoException, port: number, host: string): Error {
  const where = `port ${port} on ${host}`;
  if (error.code === 'EADDRINUSE') {
    return new Error(
      `Cannot listen on ${where}: it is already in use by another process. Stop that process, or choose another port with PORT (e.g. PORT=${port < 65535 ? port + 1 : 3000}).`,
    );
  }
  if (error.code === 'EACCES') {
    return new Error(
      `Cannot listen on ${where}: permission denied (ports below 1024 need privileges). Choose another port with PORT (e.g. PORT=3000).`,
    );
  }
  if (error.code === 'EADDRNOTAVAIL') {
    return new Error(
      `Cannot listen on ${where}: ${host} is not an address of this machine. Set HOST to one that is, or to 0.0.0.0.`,
    );
  }
  return new Error(`Cannot listen on ${where}: ${error.message}`);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenFailure(error, port, host));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

async function main(): Promise<void> {
  const settings = readSettings();
  const role = process.argv.includes('--role=gateway') ? 'gateway' : 'all';
  const runtime = await createRuntime(settings, { role });
  try {
    await listen(runtime.server, settings.port, settings.host);
  } catch (error) {
    await runtime.close(0);
    throw error;
  }
  const base = `http://localhost:${settings.port}`;
  log.info('gateway started', { url: base, mode: runtime.stores.mode, role, dataDirectory: settings.dataDirectory });
  if (runtime.seeded.admin) log.info('created the first admin from ADMIN_EMAIL', { email: runtime.seeded.admin });
  if (runtime.stores.lookups.channels().length === 0) {
    log.info(
      'no channels configured yet: nothing can be relayed. Add one with a GATEWAY_CONFIG file, e.g. ' +
        "channels: [{name: openai, type: openai, base_url: 'https://api.openai.com/v1', api_key: 'sk-...', models: [gpt-4o-mini]}] " +
        '(see README, "Configuration").',
    );
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    // The grace period for requests in flight, then time to flush events and close the stores.
    const deadline = setTimeout(() => process.exit(1), settings.shutdownGraceMs + 15_000);
    deadline.unref();
    await runtime.close();
    await flushLogs();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  log.fatal(error instanceof Error ? error.message : String(error));
  void flushLogs().then(() => process.exit(1));
});
