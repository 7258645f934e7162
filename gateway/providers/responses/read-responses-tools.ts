/**
 * @module gateway/providers/responses/read-responses-tools
 * A Responses request's tools and tool choice as the neutral request's. Every tool offered (in
 * `tools` and in `additional_tools` items, client-tools.ts) that a converted channel can run is
 * sent: a function as it is, a custom tool as a function of one string (custom-tools.ts), the
 * members of a namespace under their flattened names. Each tool the channel cannot run (web_search,
 * file_search, code_interpreter, computer use, remote mcp, …) is dropped with a warning: the model
 * answers without it, as it would where none was offered.
 */
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import type { ResponsesRequest, ResponsesTool } from '../../../contracts/openai/responses-request.ts';
import { GatewayError } from '../../errors.ts';
import { flatToolName, offeredTools } from './client-tools.ts';
import { customToolParameters } from './custom-tools.ts';

export interface ToolReading {
  target: string;
  /** adds a warning unless it was given already (one per dropped kind, not per tool) */
  once(warning: string): void;
}

type NeutralTool = NeutralRequest['tools'][number];
type FunctionTool = Extract<ResponsesTool, { type: 'function' }>;
type CustomTool = Extract<ResponsesTool, { type: 'custom' }>;
type NamespaceTool = Extract<ResponsesTool, { type: 'namespace' }>;

function functionTool(tool: FunctionTool, name: string): NeutralTool {
  return {
    name,
    ...(tool.description && { description: tool.description }),
    ...(tool.parameters && { parameters: tool.parameters }),
    ...(typeof tool.strict === 'boolean' && { strict: tool.strict }),
  };
}

function customTool(tool: CustomTool, name: string): NeutralTool {
  return {
    name,
    ...(tool.description && { description: tool.description }),
    parameters: customToolParameters(tool),
  };
}

/** A function or custom tool under `name`; undefined for a tool of another type. */
function runnable(tool: { type: string }, name: string): NeutralTool | undefined {
  if (tool.type === 'function') return functionTool(tool as FunctionTool, name);
  if (tool.type === 'custom') return customTool(tool as CustomTool, name);
  return undefined;
}

export function readTools(body: ResponsesRequest, reading: ToolReading): NeutralRequest['tools'] {
  const tools = offeredTools(body).flatMap((tool): NeutralTool[] => {
    if (tool.type === 'namespace' && 'tools' in tool) {
      const namespace = tool as NamespaceTool;
      return namespace.tools.flatMap((inner) => {
        const read = runnable(inner, flatToolName(namespace.name, String((inner as { name?: unknown }).name)));
        if (read) return [read];
        reading.once(`${inner.type} tool in namespace ${namespace.name} dropped: ${reading.target} cannot run it`);
        return [];
      });
    }
    const read = runnable(tool, String((tool as { name?: unknown }).name));
    if (read) return [read];
    reading.once(`${tool.type} tool dropped: ${reading.target} cannot run it`);
    return [];
  });
  // The other formats refuse a name given twice; the first is what the client listed first.
  const names = new Set<string>();
  return tools.filter((tool) => {
    if (!names.has(tool.name)) return names.add(tool.name);
    reading.once(`tool ${tool.name} offered again dropped: ${reading.target} takes each name once`);
    return false;
  });
}

export function readToolChoice(choice: ResponsesRequest['tool_choice']): NeutralRequest['toolChoice'] {
  if (choice === undefined || typeof choice === 'string') return choice;
  if ((choice.type === 'function' || choice.type === 'custom') && typeof choice['name'] === 'string') {
    const namespace = choice['namespace'];
    return { name: typeof namespace === 'string' ? flatToolName(namespace, choice['name']) : choice['name'] };
  }
  // Forcing a tool that is dropped would answer something the client did not ask for.
  throw new GatewayError(
    'invalid_request',
    `tool_choice of type ${choice.type} is not available for this model: its channel cannot run that tool. Force a function or custom tool by name, or send auto, none or required.`,
    { param: 'tool_choice' },
  );
}
