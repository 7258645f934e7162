/**
 * The rules an OpenAI-format stream must keep for the official clients (docs/wire-formats.md TL;DR and §4.1,
 * §4.2), checked frame by frame. Returns every violation found, plus the message the frames add up to.
 */
import type { ParsedEvent } from './sse.ts';

export interface AccumulatedCompletion {
  content: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string | null;
  usage: Record<string, any> | null;
  error: Record<string, any> | null;
}

export function checkOpenAIStream(
  events: readonly ParsedEvent[],
  options: { includeUsage: boolean },
): { violations: string[]; completion: AccumulatedCompletion } {
  const violations: string[] = [];
  const completion: AccumulatedCompletion = {
    content: '',
    reasoning: '',
    toolCalls: [],
    finishReason: null,
    usage: null,
    error: null,
  };
  let identity: string | null = null;
  let sawRole = false;
  let sawDone = false;
  let afterUsage = false;
  let finishCount = 0;
  for (const [position, { event, data }] of events.entries()) {
    const where = `frame ${position}`;
    if (event !== undefined) violations.push(`${where}: has an event: line (${event})`);
    if (sawDone) violations.push(`${where}: after [DONE]`);
    if (completion.error) violations.push(`${where}: after an error frame`);
    if (data === '[DONE]') {
      sawDone = true;
      continue;
    }
    const chunk = JSON.parse(data) as Record<string, any>;
    if (chunk.error) {
      completion.error = chunk.error;
      for (const key of ['message', 'type', 'param', 'code'])
        if (!(key in chunk.error)) violations.push(`${where}: error lacks ${key}`);
      continue;
    }
    if (afterUsage) violations.push(`${where}: a chunk after the usage chunk`);
    if (chunk.object !== 'chat.completion.chunk') violations.push(`${where}: object is ${chunk.object}`);
    const chunkIdentity = JSON.stringify([chunk.id, chunk.created, chunk.model]);
    identity ??= chunkIdentity;
    if (chunkIdentity !== identity) violations.push(`${where}: id/created/model changed`);
    if (!Array.isArray(chunk.choices)) violations.push(`${where}: choices is not an array`);
    if (chunk.usage) {
      completion.usage = chunk.usage;
      afterUsage = true;
      if (!options.includeUsage) violations.push(`${where}: usage chunk sent unasked`);
      if (chunk.choices?.length !== 0) violations.push(`${where}: usage chunk without choices: []`);
    }
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) violations.push(`${where}: choice index ${choice.index}`);
      const delta = choice.delta ?? {};
      if (delta.role !== undefined) {
        if (sawRole) violations.push(`${where}: role repeated`);
        sawRole = true;
      } else if (!sawRole) violations.push(`${where}: first delta lacks role`);
      completion.content += delta.content ?? '';
      completion.reasoning += delta.reasoning_content ?? '';
      for (const call of delta.tool_calls ?? []) {
        if (!Number.isInteger(call.index)) violations.push(`${where}: tool call without an integer index`);
        const known = completion.toolCalls[call.index];
        if (!known) {
          if (call.index !== completion.toolCalls.length) violations.push(`${where}: tool index ${call.index} skips`);
          if (!call.id || call.type !== 'function' || !call.function?.name)
            violations.push(`${where}: first delta of tool ${call.index} lacks id, type or name`);
          completion.toolCalls[call.index] = { id: call.id, name: call.function?.name, arguments: '' };
        } else if (call.id !== undefined || call.type !== undefined || call.function?.name !== undefined) {
          violations.push(`${where}: tool ${call.index} repeats its id, type or name`);
        }
        completion.toolCalls[call.index]!.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason !== null) {
        finishCount++;
        completion.finishReason = choice.finish_reason;
      }
    }
  }
  if (completion.error) return { violations, completion };
  if (!sawDone) violations.push('no [DONE]');
  if (finishCount !== 1) violations.push(`${finishCount} finish reasons`);
  if (completion.toolCalls.length && completion.finishReason !== 'tool_calls' && completion.finishReason !== 'length')
    violations.push(`tools called but finish_reason is ${completion.finishReason}`);
  if (options.includeUsage && !completion.usage) violations.push('usage asked for but not sent');
  return { violations, completion };
}
