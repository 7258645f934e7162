/**
 * @module test/support/claude-code-session
 * The requests a Claude Code-style agent sends, built from Anthropic's SDK types (`MessageCreateParams`,
 * `MessageCountTokensParams`, the beta headers) and docs/wire-formats.md §2: a system prompt of text
 * blocks with `cache_control` on the last, tools with JSON-schema inputs (the last one a cache
 * breakpoint too), extended thinking, `metadata.user_id`, and a cache breakpoint on the last block of
 * the newest user turn, moved forward as the tool loop grows. Each turn sends the assistant's blocks
 * back unchanged (thinking with its signature) and answers every tool_use with a tool_result.
 */
import type Anthropic from '@anthropic-ai/sdk';

type BetaMessageParam = Anthropic.Beta.Messages.BetaMessageParam;
type BetaContentBlock = Anthropic.Beta.Messages.BetaContentBlock;
type BetaContentBlockParam = Anthropic.Beta.Messages.BetaContentBlockParam;

/** The flags Claude Code sends on every call (the SDK joins them into one `anthropic-beta` header). */
export const AGENT_BETAS = [
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14',
];

const ephemeral = { type: 'ephemeral' as const };

const objectSchema = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object' as const,
  $schema: 'http://json-schema.org/draft-07/schema#',
  additionalProperties: false,
  properties,
  required,
});

export function agentSession(model: string) {
  return {
    model,
    max_tokens: 32000,
    temperature: 1,
    thinking: { type: 'enabled' as const, budget_tokens: 4000 },
    metadata: { user_id: 'user_5f0c8e_account__session_7d3a9b21-4c6e-4f0a-9a51-2b8d7e1c3f60' },
    system: [
      { type: 'text' as const, text: "You are Claude Code, Anthropic's official CLI for Claude." },
      {
        type: 'text' as const,
        text: 'You are an interactive CLI tool that helps users with software engineering tasks.\n<env>\nWorking directory: /repo\nPlatform: linux\n</env>',
        cache_control: ephemeral,
      },
    ],
    tools: [
      {
        name: 'Bash',
        description: 'Executes a bash command in a persistent shell session.',
        input_schema: objectSchema(
          { command: { type: 'string' }, timeout: { type: 'number' }, description: { type: 'string' } },
          ['command'],
        ),
      },
      {
        name: 'Read',
        description: 'Reads a file from the local filesystem.',
        input_schema: objectSchema(
          { file_path: { type: 'string' }, offset: { type: 'number' }, limit: { type: 'number' } },
          ['file_path'],
        ),
      },
      {
        name: 'Edit',
        description: 'Performs exact string replacements in files.',
        input_schema: objectSchema(
          { file_path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' } },
          ['file_path', 'old_string', 'new_string'],
        ),
        cache_control: ephemeral,
      },
    ],
  };
}

/** The first user turn: the prompt, with the cache breakpoint on its last block. */
export function firstTurn(prompt: string): BetaMessageParam[] {
  return [{ role: 'user', content: [{ type: 'text', text: prompt, cache_control: ephemeral }] }];
}

function withoutBreakpoint(message: BetaMessageParam): BetaMessageParam {
  if (!Array.isArray(message.content)) return message;
  const content = (message.content as BetaContentBlockParam[]).map((block) => {
    if (!('cache_control' in block)) return block;
    const { cache_control: _moved, ...rest } = block;
    return rest as BetaContentBlockParam;
  });
  return { ...message, content } as BetaMessageParam;
}

/**
 * The next request's messages: the earlier ones (breakpoints dropped), the assistant's blocks as
 * received, and one user turn answering each tool_use with `output`, the breakpoint on its last block.
 */
export function nextTurn(messages: BetaMessageParam[], reply: BetaContentBlock[], output: string): BetaMessageParam[] {
  const toolUses = reply.filter((block) => block.type === 'tool_use');
  const results: BetaContentBlockParam[] = toolUses.map((block, index) => ({
    type: 'tool_result',
    tool_use_id: block.id,
    content: output,
    ...(index === toolUses.length - 1 && { cache_control: ephemeral }),
  }));
  return [
    ...messages.map(withoutBreakpoint),
    { role: 'assistant', content: reply as BetaContentBlockParam[] },
    { role: 'user', content: results },
  ];
}

/** What the session asks `count_tokens` before a turn: the same prompt, without the generation fields. */
export function countRequest(model: string, messages: BetaMessageParam[]) {
  const { system, tools, thinking } = agentSession(model);
  return { model, system, tools, thinking, messages, betas: AGENT_BETAS };
}
