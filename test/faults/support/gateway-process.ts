/**
 * A gateway in its own process, for fault tests whose failure mode is a frozen event loop (a frozen
 * gateway in the test's own process would freeze the test too): starts the harness with one channel
 * of each format on the upstream at HOSTILE_URL (models `hostile-openai`, `hostile-anthropic`), signs
 * up a user, and prints one JSON line `{ baseUrl, key, dataDirectory }`. Extra settings come as JSON
 * in GATEWAY_ENVIRONMENT. Run with `node --import tsx`.
 */
import { ConsoleClient } from '../../support/console-client.ts';
import { startHarness } from '../../support/gateway-harness.ts';

const hostileUrl = process.env.HOSTILE_URL;
if (!hostileUrl) throw new Error('HOSTILE_URL is not set');
const harness = await startHarness({
  environment: JSON.parse(process.env.GATEWAY_ENVIRONMENT ?? '{}'),
  extraChannels: [
    { name: 'hostile-openai', type: 'openai', models: ['hostile-openai'], baseUrl: `${hostileUrl}/v1` },
    { name: 'hostile-anthropic', type: 'anthropic', models: ['hostile-anthropic'], baseUrl: hostileUrl },
  ],
});
const client = new ConsoleClient(harness.baseUrl);
await client.register('stream-faults@example.com');
const { key } = await client.createToken('stream-faults');
process.stdout.write(`${JSON.stringify({ baseUrl: harness.baseUrl, key, dataDirectory: harness.dataDirectory })}\n`);
process.on('SIGTERM', () => {
  void harness.stop().then(() => process.exit(0));
});
