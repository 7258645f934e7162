/**
 * Faults on the embedded default, each case reporting requests sent, succeeded and failed, and events
 * lost or counted twice (read from the SQLite event log by request id): upstream 5xx, 429, timeouts
 * (no headers, and a stream gone silent), connection resets, malformed JSON, a stream cut mid-way, a
 * client disconnecting mid-stream, and healthy traffic as the control (the store's disk full:
 * embedded-disk-full.int.spec.ts).
 * Figures go to test/artifacts/faults/embedded.json (quoted in docs/reliability.md).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../fake-upstream/choose-fixture.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { compareCounts, FaultReport } from './fault-report.ts';
import {
  ADMIN,
  type Endpoint,
  eventCounts,
  type Outcome,
  send,
  sendAndDisconnect,
  settle,
  startGateway,
} from './support/embedded-gateway.ts';

const PER_CASE = 10;
const report = new FaultReport();
afterAll(() => report.write('embedded'));

interface FaultCase {
  name: string;
  /** the reply of every upstream attempt (retries included); none: the healthy default */
  scenario?: Scenario;
  stream: boolean;
  healthy: boolean;
  model?: string;
  disconnect?: boolean;
  /**
   * the same-format half forwards the upstream's frames as they are (what the gateway need not read is
   * the upstream's to judge), so only the converted half fails; said in the report
   */
  passedThrough?: string;
}

const CASES: FaultCase[] = [
  { name: 'healthy upstream (control)', stream: false, healthy: true },
  { name: 'healthy upstream, streamed (control)', stream: true, healthy: true },
  { name: 'upstream 5xx', scenario: 'error-500', stream: false, healthy: false },
  { name: 'upstream 429', scenario: 'error-429', stream: false, healthy: false },
  { name: 'upstream timeout (no headers)', scenario: { fixture: 'text', hang: true }, stream: false, healthy: false },
  {
    name: 'upstream silent mid-stream (idle timeout)',
    scenario: { fixture: 'text', chunkDelayMs: 1_500 },
    stream: true,
    healthy: false,
  },
  {
    name: 'connection reset before any byte',
    scenario: { fixture: 'text', cutAfterChunks: 0 },
    stream: false,
    healthy: false,
  },
  { name: 'stream cut mid-way', scenario: { fixture: 'text', cutAfterChunks: 2 }, stream: true, healthy: false },
  { name: 'malformed JSON from the upstream', stream: false, healthy: false, model: 'broken-model' },
  {
    name: 'malformed stream frames from the upstream',
    stream: true,
    healthy: false,
    model: 'broken-model',
    passedThrough:
      'same format forwards the frames as they are (5 × 200); a converted reply ends with an in-band error at the first frame that is not JSON',
  },
  {
    name: 'client disconnecting mid-stream',
    scenario: { fixture: 'text', chunkDelayMs: 150 },
    stream: true,
    healthy: true,
    disconnect: true,
  },
];

/** An OpenAI-format upstream that answers 200 with JSON cut in the middle, and SSE frames that are not JSON. */
async function startBrokenUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on('end', () => {
      const streaming = /"stream"\s*:\s*true/.test(text);
      if (streaming) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          'data: {"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"he\n\n',
        );
        response.write('data: not json at all\n\n');
        response.end('data: [DONE]\n\n');
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          '{"id":"chatcmpl-broken","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis',
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('upstream and client faults on the embedded store', () => {
  it.each(CASES)(
    '$name: every request counted exactly once, no 5xx when the upstream was healthy',
    async (fault) => {
      const gateway = await startGateway();
      const broken = fault.model ? await startBrokenUpstream() : null;
      try {
        if (broken) {
          const admin = new ConsoleClient(gateway.harness.baseUrl);
          await admin.call('POST', '/api/auth/login', ADMIN);
          const created = await admin.call('POST', '/api/channels', {
            name: 'broken',
            type: 'openai',
            base_url: `${broken.url}/v1`,
            api_key: 'broken-upstream-key-000000',
            models: ['broken-model'],
          });
          expect(created.status).toBe(201);
        }
        const outcomes: Outcome[] = [];
        const sentIds: string[] = [];
        for (const endpoint of ['/v1/chat/completions', '/v1/messages'] as Endpoint[]) {
          gateway.harness.upstream.reset();
          // Every attempt (the relay retries before the first byte) meets the fault.
          if (fault.scenario)
            for (let index = 0; index < PER_CASE * 3; index += 1) gateway.harness.upstream.next(fault.scenario);
          const ids = Array.from(
            { length: PER_CASE / 2 },
            (_, index) => `fault-${endpoint.length}-${index}-${Date.now()}`,
          );
          sentIds.push(...ids);
          outcomes.push(
            ...(await Promise.all(
              ids.map((id) =>
                fault.disconnect
                  ? sendAndDisconnect(gateway, endpoint, id)
                  : send(gateway, endpoint, fault.stream, id, fault.model),
              ),
            )),
          );
        }
        // A client that hung up is noticed when the next frame is written: give the relay a moment.
        if (fault.disconnect) await new Promise((resolve) => setTimeout(resolve, 1_000));
        await settle(gateway.harness);
        const { completed, usage, clientAborted } = eventCounts(gateway.harness);
        const { lost, doubleCounted } = compareCounts(sentIds, completed);
        const usageTwice = sentIds.filter((id) => (usage.get(id) ?? 0) > 1).length;
        const statuses: Record<string, number> = {};
        for (const outcome of outcomes) statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
        const succeeded = outcomes.filter((outcome) => outcome.ok).length;
        const healthyUpstream5xx = fault.healthy ? outcomes.filter((outcome) => outcome.status >= 500).length : 0;
        report.add({
          case: fault.name,
          sent: sentIds.length,
          succeeded,
          failed: sentIds.length - succeeded,
          healthyUpstream5xx,
          lost,
          doubleCounted: doubleCounted + usageTwice,
          statuses,
          ...(fault.disconnect && { note: `${clientAborted} recorded as client-aborted` }),
          ...(fault.passedThrough && { note: fault.passedThrough }),
        });
        expect(lost).toBe(0);
        expect(doubleCounted).toBe(0);
        expect(usageTwice).toBe(0);
        expect(healthyUpstream5xx).toBe(0);
        if (fault.healthy && !fault.disconnect) expect(succeeded).toBe(sentIds.length);
        if (!fault.healthy) expect(succeeded).toBe(fault.passedThrough ? sentIds.length / 2 : 0);
        if (fault.disconnect) expect(clientAborted).toBe(sentIds.length);
      } finally {
        await broken?.close();
        await gateway.harness.stop();
      }
    },
    60_000,
  );
});
