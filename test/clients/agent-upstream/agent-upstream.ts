/**
 * An upstream that plays a model for real agent clients, on every channel kind's routes at once
 * (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini, Bedrock Converse, Azure
 * deployments). The recorded fixtures of test/fake-upstream name tools of their own; an agent only
 * runs a tool it offered, so this upstream answers from the request: a test registers a cell (a run of
 * one client on one channel) whose prompt carries the cell's marker, and each request of that run gets
 *
 * - the final answer, naming the secret, once the secret (the file's content) is in the conversation:
 *   the client ran its tool and sent the result back;
 * - a call of the client's own read-file tool, found among the offered tools by name, for a tool cell;
 * - a short text otherwise (and the JSON the Gemini CLI's model router asks for).
 *
 * Every answer reports its own token counts, and the upstream keeps them per cell, so a test can
 * compare what the gateway recorded with what the upstream reported.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type OfferedTool, readCall, type UpstreamCall, type UpstreamKind } from './read-request.ts';
import { type Answer, writeAnswer } from './write-reply.ts';

export interface Cell {
  id: string;
  /** the client's read-file tool (a converted channel may namespace it: `functions__exec`) */
  readTool?: string;
  /** the tool's input, given the tool as the upstream received it */
  toolInput?: (tool: OfferedTool) => Record<string, unknown> | string;
  /** the file's content; seen in a request, it is the tool's result coming back */
  secret?: string;
}

export interface UpstreamTurn {
  kind: UpstreamKind;
  model: string;
  streamed: boolean;
  answered: 'text' | 'tool-call' | 'final' | 'count' | 'router';
  usage: { input: number; output: number };
  /** the names of the tools offered, for a failure's message */
  tools: string[];
}

export interface AgentUpstream {
  url: string;
  register(cell: Cell): void;
  turns(cellId: string): UpstreamTurn[];
  /** requests that named no registered cell (a client's side calls without the prompt) */
  unclaimed: UpstreamTurn[];
  close(): Promise<void>;
}

/** The text the final answer holds; the test looks for it in the client's output. */
export const finalText = (secret: string) => `The file says ${secret}.`;
export const plainText = (cellId: string) => `Hello from the fake upstream, ${cellId}.`;

const cellMarker = /\bcell-[a-z0-9-]+\b/;

function toolNamed(tools: OfferedTool[], name: string): OfferedTool | undefined {
  return tools.find((tool) => tool.name === name || tool.name.endsWith(`__${name}`) || tool.name.endsWith(`.${name}`));
}

export async function startAgentUpstream(): Promise<AgentUpstream> {
  const cells = new Map<string, Cell>();
  const turnsByCell = new Map<string, UpstreamTurn[]>();
  const unclaimed: UpstreamTurn[] = [];
  let served = 0;

  function answer(call: UpstreamCall): { answer: Answer; answered: UpstreamTurn['answered']; cellId?: string } {
    served += 1;
    // Counts no other request reports, so that a sum proves which requests were recorded.
    const usage = { input: 1000 + 7 * served, output: 10 + served };
    const cellId = cellMarker.exec(call.text)?.[0];
    const cell = cellId ? cells.get(cellId) : undefined;
    const text = (value: string, answered: UpstreamTurn['answered']) => ({
      answer: { model: call.model, text: value, usage },
      answered,
      cellId,
    });
    if (!cell) return text('Hello from the fake upstream.', 'text');
    if (cell.secret && call.text.includes(cell.secret)) return text(finalText(cell.secret), 'final');
    // The Gemini CLI first asks a small model how hard the prompt is, as JSON.
    if (call.text.includes('complexity_score')) {
      return text(JSON.stringify({ complexity_reasoning: 'A short request.', complexity_score: 10 }), 'router');
    }
    const tool = cell.readTool ? toolNamed(call.tools, cell.readTool) : undefined;
    if (!tool || !cell.toolInput) return text(plainText(cell.id), 'text');
    const id = call.kind === 'anthropic' ? `toolu_${served}` : `call_${served}`;
    return {
      answer: { model: call.model, toolCall: { id, name: tool.name, input: cell.toolInput(tool) }, usage },
      answered: 'tool-call',
      cellId,
    };
  }

  const server = createServer(async (request, response) => {
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      body = undefined;
    }
    const path = new URL(request.url ?? '/', 'http://agent-upstream').pathname;
    const call = request.method === 'POST' && body ? readCall(path, body) : undefined;
    if (!call) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `the agent upstream has no ${request.method} ${path}` } }));
      return;
    }
    if (call.route === 'count') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(call.kind === 'gemini' ? { totalTokens: 42 } : { input_tokens: 42 }));
      return;
    }
    const chosen = answer(call);
    const turn: UpstreamTurn = {
      kind: call.kind,
      model: call.model,
      streamed: call.streamed,
      answered: chosen.answered,
      usage: chosen.answer.usage,
      tools: call.tools.map((tool) => tool.name),
    };
    const list = chosen.cellId && cells.has(chosen.cellId) ? turnsByCell.get(chosen.cellId)! : unclaimed;
    list.push(turn);
    const includeUsage = body.stream_options?.include_usage === true;
    const reply = writeAnswer(call.kind, call.streamed, chosen.answer, includeUsage);
    response.writeHead(200, { 'content-type': reply.contentType });
    if (reply.body !== undefined) {
      response.end(reply.body);
      return;
    }
    for (const frame of reply.frames ?? []) response.write(frame);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    register(cell) {
      cells.set(cell.id, cell);
      turnsByCell.set(cell.id, []);
    },
    turns: (cellId) => turnsByCell.get(cellId) ?? [],
    unclaimed,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
