/**
 * @module gateway/providers/gemini-ingress/read-generate-request
 * A Gemini client's generateContent body as the neutral request, for a channel of another kind.
 * `systemInstruction` is the system prompt, `contents` the turns (read-contents.ts), function
 * declarations the tools (their Google schemas as JSON schemas), `toolConfig` the tool choice and
 * `generationConfig` the sampling, structured output and reasoning. The model comes from the URL and
 * streaming from the method, never from the body. Refused, because dropping them would change what
 * the client asked for: more than one candidate, a response MIME type other than text or JSON, and a
 * cached content only Google holds. Everything else without an equivalent is dropped with a warning.
 */
import type { ClientGenerateContentRequest, ClientGenerationConfig } from '../../../contracts/gemini/client-request.ts';
import type {
  NeutralRequest,
  NeutralResponseFormat,
  NeutralTool,
  NeutralToolChoice,
} from '../../../contracts/neutral/request.ts';
import { effortForBudget } from '../conversion/thinking.ts';
import { type ReadRequest, refused } from '../read-request.ts';
import { jsonSchemaOf } from './json-schema.ts';
import { type ContentsContext, readContents } from './read-contents.ts';

export interface GenerateReaderOptions {
  target: string;
  /** the model named in the URL */
  model: string;
  /** `:streamGenerateContent` */
  stream: boolean;
}

const READ_FIELDS = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);
const READ_CONFIG = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);
const EFFORTS = new Set(['minimal', 'low', 'medium', 'high']);

function readSystem(body: ClientGenerateContentRequest, context: ContentsContext): string[] {
  const parts = body.systemInstruction?.parts ?? [];
  if (parts.some((part) => part.text === undefined)) {
    context.warnings.push(`systemInstruction parts other than text dropped: ${context.target} takes text there`);
  }
  const text = parts.flatMap((part) => (part.text ? [part.text] : [])).join('\n');
  return text ? [text] : [];
}

function readTools(body: ClientGenerateContentRequest, context: ContentsContext): NeutralTool[] {
  const tools: NeutralTool[] = [];
  for (const tool of body.tools ?? []) {
    for (const kind of Object.keys(tool)) {
      if (kind !== 'functionDeclarations')
        context.warnings.push(`${kind} tool dropped: no ${context.target} equivalent`);
    }
    for (const declaration of tool.functionDeclarations ?? []) {
      const parameters =
        declaration.parametersJsonSchema ?? (declaration.parameters ? jsonSchemaOf(declaration.parameters) : undefined);
      tools.push({
        name: declaration.name,
        ...(declaration.description && { description: declaration.description }),
        // A function without parameters takes none: other kinds want an object schema all the same.
        parameters: parameters ?? { type: 'object', properties: {} },
      });
    }
  }
  return tools;
}

function readToolChoice(body: ClientGenerateContentRequest, context: ContentsContext): NeutralToolChoice | undefined {
  const config = body.toolConfig?.functionCallingConfig;
  const names = config?.allowedFunctionNames ?? [];
  switch (config?.mode) {
    case undefined:
    case 'MODE_UNSPECIFIED':
      return undefined;
    case 'AUTO':
      return 'auto';
    case 'NONE':
      return 'none';
    case 'ANY':
      if (names.length === 1) return { name: names[0]! };
      if (names.length > 1) {
        context.warnings.push(`allowedFunctionNames dropped: ${context.target} forces one function or any`);
      }
      return 'required';
    default:
      context.warnings.push(`functionCallingConfig.mode ${config?.mode} read as AUTO: no ${context.target} equivalent`);
      return 'auto';
  }
}

function readResponseFormat(config: ClientGenerationConfig): NeutralResponseFormat | undefined {
  const mime = config.responseMimeType;
  if (mime === undefined || mime === 'text/plain') return undefined;
  if (mime !== 'application/json') {
    throw refused(
      `responseMimeType ${mime} cannot be asked of a channel of another kind: use application/json or text/plain.`,
      'generationConfig.responseMimeType',
    );
  }
  const schema = config.responseJsonSchema ?? (config.responseSchema ? jsonSchemaOf(config.responseSchema) : undefined);
  return schema ? { type: 'json-schema', name: 'response', schema } : { type: 'json-object' };
}

function readReasoning(config: ClientGenerationConfig, context: ContentsContext): NeutralRequest['reasoning'] {
  const thinking = config.thinkingConfig;
  if (!thinking) return undefined;
  const level = thinking.thinkingLevel?.toLowerCase();
  if (level !== undefined && EFFORTS.has(level)) return { effort: level as 'minimal' | 'low' | 'medium' | 'high' };
  if (level !== undefined) context.warnings.push(`thinkingLevel ${thinking.thinkingLevel} dropped: not a known level`);
  const budget = thinking.thinkingBudget;
  // 0 turns thinking off (the other kinds' default), -1 leaves the amount to the model.
  if (budget === undefined || budget === 0) return undefined;
  if (budget < 0) return { effort: 'medium' };
  return { effort: effortForBudget(budget), budgetTokens: budget };
}

function readSampling(config: ClientGenerationConfig): NeutralRequest['sampling'] {
  if (config.candidateCount !== undefined && config.candidateCount > 1) {
    throw refused(
      'candidateCount over 1 cannot be served by a channel of another kind: ask for one candidate per request.',
      'generationConfig.candidateCount',
    );
  }
  return {
    ...(config.maxOutputTokens !== undefined && { maxOutputTokens: config.maxOutputTokens }),
    ...(config.temperature !== undefined && { temperature: config.temperature }),
    ...(config.topP !== undefined && { topP: config.topP }),
    ...(config.topK !== undefined && { topK: config.topK }),
    ...(config.stopSequences?.length && { stop: config.stopSequences }),
  };
}

export function readGenerateRequest(body: ClientGenerateContentRequest, options: GenerateReaderOptions): ReadRequest {
  const context: ContentsContext = { target: options.target, warnings: [] };
  if (body.cachedContent !== undefined) {
    throw refused(
      `cachedContent names a cache only Google holds; a ${options.target} channel cannot read it. Send the content itself.`,
      'cachedContent',
    );
  }
  const config = body.generationConfig ?? {};
  const request: NeutralRequest = {
    model: options.model,
    system: readSystem(body, context),
    turns: readContents(body.contents, context),
    tools: readTools(body, context),
    sampling: readSampling(config),
    stream: options.stream,
  };
  const toolChoice = readToolChoice(body, context);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  const responseFormat = readResponseFormat(config);
  if (responseFormat) request.responseFormat = responseFormat;
  const reasoning = readReasoning(config, context);
  if (reasoning) request.reasoning = reasoning;
  for (const field of Object.keys(body)) {
    if (!READ_FIELDS.has(field)) context.warnings.push(`${field} dropped: no ${options.target} equivalent`);
  }
  for (const field of Object.keys(config)) {
    if (!READ_CONFIG.has(field))
      context.warnings.push(`generationConfig.${field} dropped: no ${options.target} equivalent`);
  }
  return { request, warnings: context.warnings };
}
