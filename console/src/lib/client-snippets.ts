/**
 * A first call, or a client's settings, for each format the gateway speaks, pointed at this gateway:
 * what the new-key dialog and the keys page offer to copy. The settings are those README's "Agent
 * clients" names (tested with the clients themselves, docs/clients.md).
 */

export interface ClientSnippet {
  id: 'openai' | 'anthropic' | 'gemini' | 'claude-code' | 'codex' | 'gemini-cli';
  /** the client's or format's own name, not translated */
  title: string;
  text: string;
}

const hello = (model: string, extra = '') =>
  `{"model": "${model}",${extra} "messages": [{"role": "user", "content": "Hello"}]}`;

/** `baseUrl` without a trailing slash; `key` the new key, or a placeholder. */
export function clientSnippets(baseUrl: string, key: string): ClientSnippet[] {
  return [
    {
      id: 'openai',
      title: 'OpenAI',
      text: [
        `curl ${baseUrl}/v1/chat/completions \\`,
        `  -H "Authorization: Bearer ${key}" \\`,
        `  -H "Content-Type: application/json" \\`,
        `  -d '${hello('gpt-4o-mini')}'`,
      ].join('\n'),
    },
    {
      id: 'anthropic',
      title: 'Anthropic',
      text: [
        `curl ${baseUrl}/v1/messages \\`,
        `  -H "x-api-key: ${key}" \\`,
        `  -H "anthropic-version: 2023-06-01" \\`,
        `  -H "Content-Type: application/json" \\`,
        `  -d '${hello('claude-sonnet-4-5', ' "max_tokens": 256,')}'`,
      ].join('\n'),
    },
    {
      id: 'gemini',
      title: 'Gemini',
      text: [
        `curl ${baseUrl}/v1beta/models/gemini-2.5-flash:generateContent \\`,
        `  -H "x-goog-api-key: ${key}" \\`,
        `  -H "Content-Type: application/json" \\`,
        `  -d '{"contents": [{"role": "user", "parts": [{"text": "Hello"}]}]}'`,
      ].join('\n'),
    },
    {
      id: 'claude-code',
      title: 'Claude Code',
      text: [`export ANTHROPIC_BASE_URL=${baseUrl}`, `export ANTHROPIC_API_KEY=${key}`, 'claude'].join('\n'),
    },
    {
      id: 'codex',
      title: 'Codex',
      text: [
        '# ~/.codex/config.toml',
        'model_provider = "gateway"',
        '',
        '[model_providers.gateway]',
        'name = "gateway"',
        `base_url = "${baseUrl}/v1"`,
        'wire_api = "responses"',
        'env_key = "GATEWAY_KEY"',
        '',
        '# then, in the shell:',
        `# export GATEWAY_KEY=${key}`,
      ].join('\n'),
    },
    {
      id: 'gemini-cli',
      title: 'Gemini CLI',
      text: [
        `export GOOGLE_GEMINI_BASE_URL=${baseUrl}`,
        `export GEMINI_API_KEY=${key}`,
        '# choose the API-key sign-in: ~/.gemini/settings.json',
        '# {"security": {"auth": {"selectedType": "gemini-api-key"}}}',
        'gemini',
      ].join('\n'),
    },
  ];
}

/** Where this console, and so the gateway, is reached: the page's own origin. */
export const gatewayBaseUrl = () => globalThis.location?.origin ?? '';
