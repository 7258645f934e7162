/**
 * @module gateway/providers/conversion/anthropic-tool-id
 * Anthropic accepts only `[a-zA-Z0-9_-]` in tool ids; OpenAI-compatible servers send others
 * (`functions.Bash:0`). The same mapping is applied to tool_use ids and to the tool_result ids that
 * answer them, in requests and replies alike, so a pair still matches (pitfalls 10 and 11).
 */
export function sanitizeToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu_unnamed';
}
