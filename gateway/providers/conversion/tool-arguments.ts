/**
 * @module gateway/providers/conversion/tool-arguments
 * OpenAI carries tool arguments as JSON text, Anthropic as an object. Text that is not a JSON object
 * (a model's broken JSON, an array) is read as `{}` rather than dropping the call: a dropped call
 * would leave its tool result without a partner, which Anthropic refuses (pitfall 10).
 */

/** The arguments as an object, or null when the text is not a JSON object ('' counts as `{}`). */
export function parseToolArguments(argumentsText: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(argumentsText.trim() || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return null;
}
