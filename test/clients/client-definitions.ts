/**
 * The clients the compatibility suite runs, each as a user would point it at the gateway. The agent
 * CLIs: their npm package and pinned version, the models they ask for by default (the gateway's
 * channels must list them), the read-file tool their default toolset offers, and how to run them
 * headless in a home of their own (when a newer version changes its default model, add the new name to
 * `models`). The SDKs (sdk-definitions.ts) are rows of the same shape, run as a small script each.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OfferedTool } from './agent-upstream/read-request.ts';

export type ClientName =
  | 'claude-code'
  | 'codex'
  | 'gemini-cli'
  | 'ai-sdk-openai'
  | 'ai-sdk-anthropic'
  | 'ai-sdk-google'
  | 'langchain-js-openai'
  | 'langchain-js-anthropic'
  | 'pydantic-ai'
  | 'litellm'
  | 'langchain-python-openai';

/** The wire format a client speaks to the gateway: the channel kind that serves it without conversion. */
export type ClientFormat = 'anthropic' | 'openai-responses' | 'openai' | 'gemini';

/** An SDK's install: packages of one registry, pinned, in one cache directory with its runner scripts. */
export interface SdkInstall {
  runtime: 'node' | 'python';
  /** the cache directory's name, shared by the SDKs installed together */
  group: string;
  /** every package of the group, name to pinned version */
  packages: Record<string, string>;
  /** the script (in test/clients/sdk-scripts/) this client runs */
  script: string;
  /** the group's packages this client uses, for its row */
  uses: string[];
}

export interface RunContext {
  gatewayUrl: string;
  key: string;
  /** an empty directory used as HOME (and CODEX_HOME's parent) */
  home: string;
  /** the directory the client runs in, holding the file to read */
  workDirectory: string;
  prompt: string;
  /** the cell's check: an SDK's script offers its tool only for the tool loop */
  check: 'text' | 'tool';
}

export interface ClientDefinition {
  name: ClientName;
  /** the row's name in the matrix */
  title: string;
  format: ClientFormat;
  /** an SDK, installed and run as a script; a CLI otherwise */
  sdk?: SdkInstall;
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
export function baseEnvironment(home: string): Record<string, string> {
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
  title: 'Claude Code',
  format: 'anthropic',
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
  title: 'Codex',
  format: 'openai-responses',
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
  title: 'Gemini CLI',
  format: 'gemini',
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

export const agentClients: ClientDefinition[] = [claudeCode, codex, geminiCli];
