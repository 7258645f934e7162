/**
 * The agent clients the compatibility suite runs, each as a user would point it at the gateway: its
 * npm package and pinned version, the models it asks for by default (the gateway's channels must
 * list them), the read-file tool its default toolset offers, and how to run it headless in a home of
 * its own. When a newer version changes its default model, add the new name to `models`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OfferedTool } from './agent-upstream/read-request.ts';

export type ClientName = 'claude-code' | 'codex' | 'gemini-cli';

export interface RunContext {
  gatewayUrl: string;
  key: string;
  /** an empty directory used as HOME (and CODEX_HOME's parent) */
  home: string;
  /** the directory the client runs in, holding the file to read */
  workDirectory: string;
  prompt: string;
}

export interface ClientDefinition {
  name: ClientName;
  packageName: string;
  pinned: string;
  /** the executable in node_modules/.bin */
  bin: string;
  models: string[];
  readTool: string;
  toolInput(tool: OfferedTool, file: string): Record<string, unknown> | string;
  /** arguments and environment of a headless run (files it needs are written here) */
  command(context: RunContext): { args: string[]; env: Record<string, string> };
}

/** Environment every run starts from: no proxies or keys of the machine's, no colours, no updates. */
function baseEnvironment(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    CI: '1',
    TERM: 'dumb',
  };
}

const claudeCode: ClientDefinition = {
  name: 'claude-code',
  packageName: '@anthropic-ai/claude-code',
  pinned: '2.1.332',
  bin: 'claude',
  models: ['claude-opus-5-5', 'claude-haiku-4-5'],
  readTool: 'Read',
  toolInput: (_tool, file) => ({ file_path: file }),
  command: ({ gatewayUrl, key, home, prompt }) => ({
    args: ['-p', prompt, '--output-format', 'json', '--allowedTools', 'Read'],
    env: {
      ...baseEnvironment(home),
      ANTHROPIC_BASE_URL: gatewayUrl,
      ANTHROPIC_API_KEY: key,
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  }),
};

/** Codex's read tool, with its default model, is `exec`: JavaScript calling its nested shell tool. */
const codexReadScript = (file: string) =>
  `const result = await tools.exec_command({ cmd: ${JSON.stringify(`cat ${file}`)} });\ntext(result.output);`;

const codex: ClientDefinition = {
  name: 'codex',
  packageName: '@openai/codex',
  pinned: '0.171.0',
  bin: 'codex',
  models: ['gpt-6.2-sol'],
  readTool: 'exec',
  toolInput: (tool, file) => {
    if (tool.freeform) return codexReadScript(file);
    // A converted channel offers the freeform tool as a function of one string property.
    return { [tool.properties[0] ?? 'input']: codexReadScript(file) };
  },
  command: ({ gatewayUrl, key, home, prompt }) => {
    const codexHome = path.join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model_provider = "gateway"',
        // The sandbox is not what is tested here, and bubblewrap needs user namespaces CI may lack.
        'sandbox_mode = "danger-full-access"',
        'approval_policy = "never"',
        '',
        '[model_providers.gateway]',
        'name = "gateway"',
        `base_url = "${gatewayUrl}/v1"`,
        'wire_api = "responses"',
        'env_key = "GATEWAY_KEY"',
        // One attempt: a failing cell should fail in seconds, not after Codex's reconnects.
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
      ].join('\n'),
    );
    return {
      args: ['exec', '--skip-git-repo-check', prompt],
      env: { ...baseEnvironment(home), CODEX_HOME: codexHome, GATEWAY_KEY: key },
    };
  },
};

const geminiCli: ClientDefinition = {
  name: 'gemini-cli',
  packageName: '@google/gemini-cli',
  pinned: '0.61.0',
  bin: 'gemini',
  // The CLI's model router sends each prompt to the pro or the flash model, and asks the lite one
  // which to choose.
  models: ['gemini-3.1-pro-preview', 'gemini-3.8-flash', 'gemini-3.5-flash-lite'],
  readTool: 'read_file',
  toolInput: (_tool, file) => ({ file_path: file }),
  command: ({ gatewayUrl, key, home, prompt }) => {
    const settings = path.join(home, '.gemini');
    mkdirSync(settings, { recursive: true });
    writeFileSync(
      path.join(settings, 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      }),
    );
    return {
      args: ['-p', prompt, '--yolo'],
      env: {
        ...baseEnvironment(home),
        GOOGLE_GEMINI_BASE_URL: gatewayUrl,
        GEMINI_API_KEY: key,
        // Headless runs refuse an untrusted folder; the temp work directory is the test's own.
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      },
    };
  },
};

export const clients: ClientDefinition[] = [claudeCode, codex, geminiCli];
