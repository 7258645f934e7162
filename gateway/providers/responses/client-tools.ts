/**
 * @module gateway/providers/responses/client-tools
 * The tools a Responses client offers, as a converted channel sees them, and the names its calls are
 * answered by.
 *
 * - Tools come from `tools` and from every `additional_tools` input item (Codex offers all of its own
 *   that way). Where such an item sits in `input` does not matter to a converted channel: the formats
 *   it speaks offer tools for the whole conversation, so the items' tools are added to `tools`, in
 *   order, and a name offered twice is offered once (as first given).
 * - No other format groups tools, so each function or custom tool of a `namespace` is sent as one
 *   tool named `<namespace>__<name>`: unique as long as the client's own names are, and readable to
 *   the model. A call the client sends back with its namespace is flattened again.
 * - A call of such a name is answered as the client knows the tool: `name` its own, `namespace`
 *   beside it, and as a `custom_tool_call` when the tool is a custom one (custom-tools.ts), whole and
 *   streamed.
 */
import type { ResponsesRequest, ResponsesTool } from '../../../contracts/openai/responses-request.ts';

export interface ClientTool {
  name: string;
  namespace?: string;
  /** a custom (freeform) tool: its calls carry text, not JSON arguments */
  custom: boolean;
}

const SEPARATOR = '__';

export function flatToolName(namespace: string, name: string): string {
  return `${namespace}${SEPARATOR}${name}`;
}

/** Every tool the request offers: `tools`, then those of its `additional_tools` items, in order. */
export function offeredTools(body: Pick<ResponsesRequest, 'tools' | 'input'>): ResponsesTool[] {
  const listed = Array.isArray(body.tools) ? [...body.tools] : [];
  if (!Array.isArray(body.input)) return listed;
  for (const item of body.input) {
    if (item.type === 'additional_tools' && 'tools' in item && Array.isArray(item.tools)) {
      listed.push(...(item.tools as ResponsesTool[]));
    }
  }
  return listed;
}

type LooseTool = { type?: unknown; name?: unknown; tools?: unknown };

/** The function and custom tools offered, by the name the upstream knows them by. */
export function clientTools(body: Pick<ResponsesRequest, 'tools' | 'input'>): ReadonlyMap<string, ClientTool> {
  const tools = new Map<string, ClientTool>();
  const add = (flat: string, tool: ClientTool) => {
    if (!tools.has(flat)) tools.set(flat, tool);
  };
  for (const tool of offeredTools(body) as LooseTool[]) {
    if ((tool?.type === 'function' || tool?.type === 'custom') && typeof tool.name === 'string') {
      add(tool.name, { name: tool.name, custom: tool.type === 'custom' });
    }
    if (tool?.type !== 'namespace' || typeof tool.name !== 'string' || !Array.isArray(tool.tools)) continue;
    for (const inner of tool.tools as LooseTool[]) {
      if ((inner?.type === 'function' || inner?.type === 'custom') && typeof inner.name === 'string') {
        add(flatToolName(tool.name, inner.name), {
          name: inner.name,
          namespace: tool.name,
          custom: inner.type === 'custom',
        });
      }
    }
  }
  return tools;
}

/** A call's fields as the client knows the tool; a name no tool has (the model made it up) stays a function's. */
export function clientCall(flatName: string, tools: ReadonlyMap<string, ClientTool>): ClientTool {
  return tools.get(flatName) ?? { name: flatName, custom: false };
}

/** The `name` and `namespace` fields of a call item. */
export function callName({ name, namespace }: ClientTool): { name: string; namespace?: string } {
  return namespace === undefined ? { name } : { name, namespace };
}
