/**
 * @module gateway/providers/gemini/write-contents
 * The neutral turns as Gemini `contents`. Images and files travel inline (`data:` URLs) or by URI;
 * a tool result is a `functionResponse` named after the call it answers (Gemini matches by name and
 * order, so the clients' call ids are not sent); thinking goes back only as Google signed it
 * (thought-signature.ts), and a function call that lost its signature gets the placeholder Google
 * documents, so that Gemini 3 does not refuse the turn.
 */
import type { GeminiContent, GeminiPart } from '../../../contracts/gemini/generate-content-request.ts';
import type { NeutralTurn } from '../../../contracts/neutral/request.ts';
import { GatewayError } from '../../errors.ts';
import { readSignature, SKIPPED_SIGNATURE } from './thought-signature.ts';

const refused = (message: string, param: string) => new GatewayError('invalid_request', message, { param });

const dataUrl = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

const extensionTypes: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  pdf: 'application/pdf',
};

function mediaPart(url: string, param: string): GeminiPart {
  const inline = dataUrl.exec(url);
  if (inline) return { inlineData: { mimeType: inline[1]!, data: inline[2]! } };
  if (url.startsWith('data:')) throw refused('A data: URL must be base64-encoded for a Gemini channel.', param);
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  const mimeType = extension ? extensionTypes[extension] : undefined;
  return { fileData: { fileUri: url, ...(mimeType && { mimeType }) } };
}

function filePart(part: { data?: string | undefined; fileId?: string | undefined }, param: string): GeminiPart {
  if (part.data) return mediaPart(part.data, param);
  // Only a file uploaded to Google's Files API is known to Gemini by reference.
  const id = part.fileId ?? '';
  if (/^(files\/|https:\/\/generativelanguage\.googleapis\.com\/)/.test(id)) return { fileData: { fileUri: id } };
  throw refused(
    `The file ${id || '(no id)'} is not available to a Gemini channel: send the file's data, or a Gemini Files API name (files/…).`,
    param,
  );
}

function functionArguments(text: string, param: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // refused below
  }
  throw refused('A tool call in the conversation has arguments that are not a JSON object; Gemini needs one.', param);
}

/** Gemini takes an object as a function's response: JSON objects as they are, anything else wrapped. */
function functionResponse(output: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(output);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // not JSON: plain text
  }
  return { result: output };
}

function modelParts(turn: NeutralTurn, index: number, callNames: Map<string, string>): GeminiPart[] {
  const parts: GeminiPart[] = [];
  let pendingSignature: string | null = null;
  let signedCall = false;
  for (const part of turn.parts) {
    const param = `turns[${index}]`;
    if (part.type === 'thinking' || part.type === 'redacted-thinking') {
      // A carrier without text (Responses reads one as redacted thinking) holds only the signature.
      const text = part.type === 'thinking' ? part.text : '';
      const signature = readSignature(part.type === 'thinking' ? part.signature : part.data);
      if (signature?.signs === 'thought' && text)
        parts.push({ thought: true, text, thoughtSignature: signature.signature });
      else if (signature) pendingSignature = signature.signature;
      continue;
    }
    let written: GeminiPart | null = null;
    if (part.type === 'text' && part.text) written = { text: part.text };
    if (part.type === 'tool-call') {
      callNames.set(part.id, part.name);
      written = { functionCall: { name: part.name, args: functionArguments(part.arguments, param) } };
      if (!signedCall && pendingSignature === null) pendingSignature = SKIPPED_SIGNATURE;
      signedCall = true;
    }
    if (!written) continue;
    if (pendingSignature !== null) written.thoughtSignature = pendingSignature;
    pendingSignature = null;
    parts.push(written);
  }
  return parts;
}

function userParts(turn: NeutralTurn, index: number, callNames: Map<string, string>): GeminiPart[] {
  return turn.parts.flatMap((part): GeminiPart[] => {
    const param = `turns[${index}]`;
    switch (part.type) {
      case 'text':
        return part.text ? [{ text: part.text }] : [];
      case 'image':
        return [mediaPart(part.url, param)];
      case 'file':
        return [filePart(part, param)];
      case 'tool-result': {
        const name = callNames.get(part.callId);
        if (!name) {
          throw refused(
            `The tool result for call ${part.callId} answers no tool call earlier in the conversation; Gemini needs the call's function name.`,
            param,
          );
        }
        // Google's convention: an `error` key for a failed call. Images a tool returned follow the response.
        const response = part.isError ? { error: part.output } : functionResponse(part.output);
        const media = (part.content ?? []).flatMap((content) =>
          content.type === 'image'
            ? [mediaPart(content.url, param)]
            : content.type === 'file'
              ? [filePart(content, param)]
              : [],
        );
        return [{ functionResponse: { name, response } }, ...media];
      }
      default:
        return [];
    }
  });
}

export function writeContents(turns: NeutralTurn[]): GeminiContent[] {
  const callNames = new Map<string, string>();
  const contents: GeminiContent[] = [];
  for (const [index, turn] of turns.entries()) {
    // This kind takes no system turns: they were moved to systemInstruction (converted-request.ts).
    if (turn.role === 'system') continue;
    const parts = turn.role === 'user' ? userParts(turn, index, callNames) : modelParts(turn, index, callNames);
    // A turn that was only unsigned thinking has nothing Gemini reads; an empty one it refuses.
    if (parts.length > 0) contents.push({ role: turn.role === 'user' ? 'user' : 'model', parts });
  }
  return contents;
}
