/**
 * @module gateway/providers/gemini-ingress/read-contents
 * A Gemini client's `contents` as neutral turns. `model` turns are the assistant's, every other role
 * the user's. Inline data becomes an image or file part (a `data:` URL); a `fileData` URI only when it
 * is an http(s) image another kind can fetch. Gemini matches a function's response to its call by name
 * and order, and sends call ids only sometimes, so a call without an id gets one from its place in the
 * conversation and a response without one answers the earliest unanswered call of its name. Thought
 * parts are thinking, their `thoughtSignature` the neutral signature as it came (a converted channel's
 * own, which this format's writer handed out); a signature on another part only Gemini reads, and a
 * gemini channel gets the body as written, so it is left out here.
 */
import type { ClientContent, ClientPart } from '../../../contracts/gemini/client-request.ts';
import type { NeutralPart, NeutralTurn } from '../../../contracts/neutral/request.ts';
import { pushTurn, refused } from '../read-request.ts';

export interface ContentsContext {
  target: string;
  warnings: string[];
}

/** The part kinds this reader converts; any other key of a part is a kind it drops. */
const READ_KEYS = new Set([
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'thought',
  'thoughtSignature',
]);

/** The output of a function response: Google's `{result}` / `{output}` wrapping unwrapped, `{error}` a failure. */
function responseOutput(response: Record<string, unknown> | undefined): { output: string; isError: boolean } {
  const value = response ?? {};
  const keys = Object.keys(value);
  if (keys.length === 1 && typeof value['error'] === 'string') return { output: value['error'], isError: true };
  if (keys.length === 1 && (typeof value['result'] === 'string' || typeof value['output'] === 'string')) {
    return { output: (value['result'] ?? value['output']) as string, isError: false };
  }
  return { output: JSON.stringify(value), isError: false };
}

function inline({ mimeType, data }: { mimeType: string; data: string }): NeutralPart {
  const url = `data:${mimeType};base64,${data}`;
  return mimeType.startsWith('image/') ? { type: 'image', url } : { type: 'file', data: url };
}

class ContentsReader {
  readonly #context: ContentsContext;
  /** calls not yet answered, oldest first, by function name */
  readonly #open = new Map<string, string[]>();
  readonly #ids = new Set<string>();

  constructor(context: ContentsContext) {
    this.#context = context;
  }

  turns(contents: ClientContent[]): NeutralTurn[] {
    const turns: NeutralTurn[] = [];
    for (const [index, content] of contents.entries()) {
      const role = content.role === 'model' ? 'assistant' : 'user';
      const parts = (content.parts ?? []).flatMap((part, at) =>
        this.#part(part, role, `contents[${index}].parts[${at}]`, `call_${index}_${at}`),
      );
      if (parts.length > 0) pushTurn(turns, role, parts);
    }
    return turns;
  }

  #part(part: ClientPart, role: NeutralTurn['role'], param: string, placeId: string): NeutralPart[] {
    for (const key of Object.keys(part)) {
      if (!READ_KEYS.has(key))
        this.#context.warnings.push(`${key} part dropped: no ${this.#context.target} equivalent`);
    }
    if (part.thought === true) {
      if (role !== 'assistant') return [];
      return [{ type: 'thinking', text: part.text ?? '', signature: part.thoughtSignature ?? '' }];
    }
    if (part.functionCall) {
      const id = part.functionCall.id || placeId;
      const { name } = part.functionCall;
      this.#ids.add(id);
      this.#open.set(name, [...(this.#open.get(name) ?? []), id]);
      return [{ type: 'tool-call', id, name, arguments: JSON.stringify(part.functionCall.args ?? {}) }];
    }
    if (part.functionResponse) return [this.#result(part.functionResponse, param)];
    if (part.inlineData) return [inline(part.inlineData)];
    if (part.fileData) return [this.#file(part.fileData, param)];
    return part.text ? [{ type: 'text', text: part.text }] : [];
  }

  #result(response: NonNullable<ClientPart['functionResponse']>, param: string): NeutralPart {
    const open = this.#open.get(response.name) ?? [];
    const callId = response.id && this.#ids.has(response.id) ? response.id : open[0];
    if (callId === undefined) {
      throw refused(
        `The functionResponse for ${response.name} answers no functionCall of that name earlier in the conversation; a ${this.#context.target} channel needs the call it answers.`,
        param,
      );
    }
    this.#open.set(
      response.name,
      open.filter((id) => id !== callId),
    );
    const { output, isError } = responseOutput(response.response);
    return { type: 'tool-result', callId, output, ...(isError && { isError }) };
  }

  #file({ mimeType, fileUri }: { mimeType?: string | undefined; fileUri: string }, param: string): NeutralPart {
    const image = mimeType === undefined || mimeType.startsWith('image/');
    if (/^https?:\/\//i.test(fileUri) && image && !/generativelanguage\.googleapis\.com/.test(fileUri)) {
      return { type: 'image', url: fileUri };
    }
    throw refused(
      `The file ${fileUri} cannot be read by a ${this.#context.target} channel (only Gemini reads Google's Files API, and other kinds fetch only image URLs): send its data as inlineData.`,
      param,
    );
  }
}

export function readContents(contents: ClientContent[], context: ContentsContext): NeutralTurn[] {
  return new ContentsReader(context).turns(contents);
}
