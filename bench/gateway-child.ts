/**
 * @module bench/gateway-child
 * The gateway under test, in its own process so its memory and CPU are measured apart from the load
 * generator: `createRuntime` with the settings from the environment (DATA_DIR, GATEWAY_CONFIG, and the
 * cluster variables for the cluster target), listening on 127.0.0.1, port 0. Sends `{ port }` (or
 * `{ error }`) over IPC; SIGTERM closes the runtime, which drains the events, and exits.
 */
import type { AddressInfo } from 'node:net';
import { readSettings } from '../gateway/config/settings.ts';
import { createRuntime, type GatewayRuntime } from '../gateway/runtime.ts';

let runtime: GatewayRuntime;
try {
  runtime = await createRuntime(readSettings(process.env));
} catch (error) {
  process.send?.({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
runtime.server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (runtime.server.address() as AddressInfo).port });
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  runtime.server.closeAllConnections();
  await runtime.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
