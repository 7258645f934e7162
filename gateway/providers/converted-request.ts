/**
 * @module gateway/providers/converted-request
 * A client's request read once into the neutral request by its format's reader and written by one
 * channel kind's request writer. The relay asks a provider for the upstream request, then for the
 * reply's reader, with the same client body: the conversion is kept per body (weakly, it goes with
 * the request) rather than redone.
 */
import type { NeutralRequest } from '../../contracts/neutral/request.ts';
import type { UpstreamKind, WrittenRequest } from './kinds.ts';
import type { ReadRequest } from './read-request.ts';

export interface ConvertedRequest extends WrittenRequest {
  neutral: NeutralRequest;
  /**
   * `body` as JSON, printed by the first attempt and sent by every attempt (with only its channel's
   * model written in place, json-members.ts): on an agent's turn the print costs as much as the parse.
   */
  text?: string;
}

/**
 * System turns given in the conversation, moved after the system prompt for a kind that takes
 * instructions only there (Anthropic's `system`, Gemini's `systemInstruction`, Bedrock's `system`).
 * Kept rather than dropped or turned into user text: the model still follows them, though no longer
 * at their turn, which the warning says.
 */
export function hoistSystemTurns(request: NeutralRequest, target: string, warnings: string[]): NeutralRequest {
  if (!request.turns.some((turn) => turn.role === 'system')) return request;
  const system = [...request.system];
  const turns = request.turns.filter((turn) => {
    if (turn.role !== 'system') return true;
    const text = turn.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    if (text) system.push(text);
    return false;
  });
  warnings.push(`system messages in the conversation moved to the system prompt: ${target} takes them only there`);
  // Turns of one role that the system turn stood between are one turn now.
  const merged: NeutralRequest['turns'] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last && last.role === turn.role) merged[merged.length - 1] = { ...last, parts: [...last.parts, ...turn.parts] };
    else merged.push(turn);
  }
  return { ...request, system, turns: merged };
}

/** The model and streaming of a request, for a format that says them outside its body (Gemini's URL). */
export interface RequestTarget {
  model: string;
  stream: boolean;
}

/** `read` and the kind's writer, composed and remembered per client body. */
export function requestConverter(
  read: (body: Record<string, unknown>, request: RequestTarget) => ReadRequest,
  kind: Pick<UpstreamKind, 'writeRequest' | 'capabilities' | 'label'>,
  target = kind.label ?? 'the channel',
): (body: Record<string, unknown>, request: RequestTarget) => ConvertedRequest {
  const converted = new WeakMap<object, ConvertedRequest>();
  return (body, asked) => {
    let result = converted.get(body);
    if (!result) {
      const { request, warnings } = read(body, asked);
      const neutral = kind.capabilities.systemTurns ? request : hoistSystemTurns(request, target, warnings);
      const written = kind.writeRequest(neutral);
      result = { ...written, neutral, warnings: [...warnings, ...written.warnings] };
      converted.set(body, result);
    }
    return result;
  };
}
