/**
 * @module gateway/providers/gemini/write-request
 * The `gemini` kind's request writer: a neutral request as a `generateContent` body. Tools become
 * `functionDeclarations` with their schemas in Gemini's subset (json-schema.ts), the tool choice a
 * `functionCallingConfig`, sampling and structured output the `generationConfig`, and a reasoning
 * effort a thinking budget with the thoughts shown (so the client gets them, as from the other kinds).
 */
import type {
  GeminiFunctionDeclaration,
  GeminiGenerateContentRequest,
  GeminiGenerationConfig,
  GeminiToolConfig,
} from '../../../contracts/gemini/generate-content-request.ts';
import type { NeutralRequest, NeutralToolChoice } from '../../../contracts/neutral/request.ts';
import { EFFORT_BUDGETS } from '../conversion/thinking.ts';
import type { WrittenRequest } from '../kinds.ts';
import { cachedByToolList } from '../tool-list-cache.ts';
import { geminiSchema } from './json-schema.ts';
import { writeContents } from './write-contents.ts';

/** Gemini takes at most this many stop sequences. */
export const MAX_STOP_SEQUENCES = 5;

/**
 * `minimal` asks for the least thinking there is: 512 tokens is inside every Gemini 2.5 model's
 * range (Pro cannot turn thinking off, Flash-Lite starts at 512).
 */
export const THINKING_BUDGETS = { minimal: 512, ...EFFORT_BUDGETS } as const;

/** The tools as function declarations, kept per tool list (tool-list-cache.ts): agents repeat theirs every turn. */
const declarations = cachedByToolList((tools, warnings): GeminiFunctionDeclaration[] =>
  tools.map((tool, index) => {
    const parameters = tool.parameters
      ? geminiSchema(tool.parameters, { param: `tools[${index}].parameters`, warnings })
      : undefined;
    // A tool without arguments has no parameters for Gemini: an OBJECT with no properties is refused.
    const hasArguments = parameters && Object.keys(parameters.properties ?? {}).length > 0;
    return {
      name: tool.name,
      ...(tool.description && { description: tool.description }),
      ...(hasArguments && { parameters }),
    };
  }),
);

function toolConfig(choice: NeutralToolChoice): GeminiToolConfig {
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
}

function generationConfig(request: NeutralRequest, warnings: string[]): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  const { maxOutputTokens, temperature, topP, topK, stop } = request.sampling;
  if (temperature !== undefined) config.temperature = temperature;
  if (topP !== undefined) config.topP = topP;
  if (topK !== undefined) config.topK = topK;
  if (maxOutputTokens !== undefined) config.maxOutputTokens = maxOutputTokens;
  if (stop?.length) {
    if (stop.length > MAX_STOP_SEQUENCES) warnings.push(`stop sequences after the first ${MAX_STOP_SEQUENCES} dropped`);
    config.stopSequences = stop.slice(0, MAX_STOP_SEQUENCES);
  }
  const format = request.responseFormat;
  if (format?.type === 'json-object') config.responseMimeType = 'application/json';
  if (format?.type === 'json-schema') {
    config.responseMimeType = 'application/json';
    config.responseSchema = geminiSchema(format.schema, { param: 'response_format', warnings });
  }
  // A client's exact budget (Anthropic's budget_tokens, the -thinking suffix) wins over the effort's.
  const { effort, budgetTokens } = request.reasoning ?? {};
  const budget = budgetTokens ?? (effort ? THINKING_BUDGETS[effort] : undefined);
  if (budget !== undefined) config.thinkingConfig = { thinkingBudget: budget, includeThoughts: true };
  return config;
}

export function writeGeminiRequest(request: NeutralRequest): WrittenRequest {
  const warnings: string[] = [];
  const body: GeminiGenerateContentRequest = { contents: writeContents(request.turns) };
  const system = request.system.filter((text) => text !== '');
  if (system.length > 0) body.systemInstruction = { parts: system.map((text) => ({ text })) };
  if (request.tools.length > 0) {
    body.tools = [{ functionDeclarations: declarations(request.tools, warnings) }];
    if (request.toolChoice !== undefined) body.toolConfig = toolConfig(request.toolChoice);
  }
  const config = generationConfig(request, warnings);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return { body, warnings, answerTool: null };
}
