/**
 * The clients are the test clients: Claude Code, Codex and the Gemini CLI, installed from npm at
 * pinned versions (install-clients.ts), run headless with their default models and tools, and the
 * SDKs teams build on (sdk-definitions.ts: the AI SDK, LangChain JS, pydantic-ai, litellm,
 * langchain-openai), each run as a small script, against one gateway in front of the agent upstream,
 * on a channel of each kind in turn. Each client answers a plain prompt, and reads a file with its own
 * tool (a CLI's read-file tool, an SDK script's local `read_file`) in a tool loop. The results are written as the
 * matrix of docs/clients.md (matrix-doc.ts).
 *
 * A cell that fails for a reason the gateway cannot fix is listed in known-failures.ts: its test then
 * expects the failure, and fails the day the cell starts to pass, so that the list and the matrix
 * are corrected.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { UsageRecorded } from '../../contracts/events/index.ts';
import { loggedEvents } from '../support/logged-events.ts';
import { type AgentUpstream, startAgentUpstream } from './agent-upstream/agent-upstream.ts';
import { type CellResult, type Check, cellId, checks, judge, promptOf } from './cells.ts';
import { type ChannelKind, type ClientGateway, channelKinds, startClientGateway } from './client-gateway.ts';
import { clients } from './client-list.ts';
import { knownFailure } from './known-failures.ts';
import { writeMatrix } from './matrix-doc.ts';
import { newRunDirectories, runClient } from './run-client.ts';

const installs = inject('clientInstalls');
const installed = 'installed' in installs ? installs.installed : [];
const RUN_TIMEOUT_MS = 90_000;

let upstream: AgentUpstream;
let gateway: ClientGateway;
const results: CellResult[] = [];

beforeAll(async () => {
  if (installed.length === 0) return;
  upstream = await startAgentUpstream();
  gateway = await startClientGateway(upstream);
});

afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
  if (results.length === clients.length * channelKinds.length * checks.length) writeMatrix(results);
});

/** What the gateway recorded for a key: its usage, and the endpoint of each of its requests. */
async function recorded(tokenId: string): Promise<{ usage: UsageRecorded['body'][]; endpoints: string[] }> {
  await gateway.harness.runtime.publisher.flush();
  const events = loggedEvents(gateway.harness.dataDirectory);
  return {
    usage: events
      .filter((event): event is UsageRecorded => event.type === 'usage.recorded' && event.body.tokenId === tokenId)
      .map((event) => event.body),
    endpoints: events.flatMap((event) =>
      event.type === 'request.completed' && event.body.tokenId === tokenId ? [event.body.endpoint] : [],
    ),
  };
}

async function runCell(clientIndex: number, kind: ChannelKind, check: Check): Promise<CellResult> {
  const client = clients[clientIndex]!;
  const install = installed.find((entry) => entry.name === client.name)!;
  const id = cellId(client.name, kind, check);
  const secret = `pelican-${Math.random().toString(36).slice(2, 10)}`;
  const { root, home, workDirectory } = newRunDirectories();
  mkdirSync(home, { recursive: true });
  mkdirSync(workDirectory, { recursive: true });
  const file = path.join(workDirectory, 'notes.txt');
  writeFileSync(file, `The secret word is ${secret}.\n`);
  upstream.register({
    id,
    secret,
    ...(check === 'tool' && { readTool: client.readTool, toolInput: (tool) => client.toolInput(tool, file) }),
  });
  const { key, tokenId } = await gateway.newKey(id);
  const run = await runClient(
    client,
    install.bin,
    install.leadingArgs,
    { gatewayUrl: gateway.harness.baseUrl, key, home, workDirectory, prompt: promptOf(id, check), check },
    RUN_TIMEOUT_MS,
  );
  const { usage, endpoints } = await recorded(tokenId);
  const reason = judge({ id, check, secret, run, turns: upstream.turns(id), usage, format: client.format, endpoints });
  rmSync(root, { recursive: true, force: true });
  if (reason && process.env.CLIENTS_VERBOSE)
    console.log(id, reason, '\n', run.stdout.slice(-2000), run.stderr.slice(-2000));
  const result = {
    client: client.name,
    version: install.version,
    kind,
    check,
    passed: !reason,
    reason,
    seconds: run.seconds,
  };
  results.push(result);
  return result;
}

describe.skipIf(installed.length === 0)('the agent clients through the gateway', () => {
  for (const kind of channelKinds) {
    describe(`on ${kind === 'openai-responses' ? 'an openai channel with responses_api' : `a ${kind} channel`}`, () => {
      beforeAll(async () => gateway.use(kind));
      for (const [clientIndex, client] of clients.entries()) {
        for (const check of checks) {
          const known = knownFailure(client.name, kind, check);
          it.concurrent(`${client.name} ${check}${known ? ' (known failure)' : ''}`, async () => {
            const result = await runCell(clientIndex, kind, check);
            if (known) expect(result.passed, `now passes; remove it from known-failures.ts: ${known}`).toBe(false);
            else expect(result.reason).toBeUndefined();
          });
        }
      }
    });
  }
});
