/**
 * @module gateway/providers/responses/custom-tools
 * Custom (freeform) Responses tools on a converted channel. No other format has a tool that takes
 * text, so each is offered as a function of one string property, `input`, described with the tool's
 * format: the upstream cannot hold the model to a grammar, but the model can follow one it is shown.
 * The model's arguments are unwrapped to the text the client's tool takes, and a call the client
 * sends back is wrapped the same way, so the model sees its earlier calls as it made them.
 */
import type { ResponsesTool } from '../../../contracts/openai/responses-request.ts';

type CustomTool = Extract<ResponsesTool, { type: 'custom' }>;

const PROPERTY = 'input';
const RAW_TEXT = "The tool's input as raw text: not JSON, not quoted, no code fences.";

function describeFormat(format: CustomTool['format']): string {
  if (format?.type === 'grammar' && typeof format.definition === 'string') {
    const syntax = format.syntax ? `${format.syntax} ` : '';
    return `${RAW_TEXT} It must match this ${syntax}grammar:\n${format.definition}`;
  }
  return RAW_TEXT;
}

/** The JSON schema of the function a custom tool is offered as. */
export function customToolParameters(tool: CustomTool): Record<string, unknown> {
  return {
    type: 'object',
    properties: { [PROPERTY]: { type: 'string', description: describeFormat(tool.format) } },
    required: [PROPERTY],
    additionalProperties: false,
  };
}

/** A custom tool call's text as the arguments of the function it was offered as. */
export function customArguments(input: string): string {
  return JSON.stringify({ [PROPERTY]: input });
}

/**
 * The text of a custom tool call from the function call's arguments: its `input`, or the one string
 * property a model named otherwise; no arguments are no text. Arguments that are not such an object
 * (a model that wrote the text bare) are passed as they are: the client's tool says what is wrong.
 */
export function customInput(argumentsText: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    return argumentsText;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return argumentsText;
  const fields = parsed as Record<string, unknown>;
  if (typeof fields[PROPERTY] === 'string') return fields[PROPERTY];
  const values = Object.values(fields);
  if (values.length === 0) return '';
  if (values.length === 1 && typeof values[0] === 'string') return values[0];
  return argumentsText;
}
