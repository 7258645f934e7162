/**
 * Writes the suite's results as the matrix of docs/clients.md, between its markers. A run of the
 * pinned versions rewrites it; a run of the newest versions (`CLIENTS_VERSIONS=latest`) writes
 * test/artifacts/clients-latest.md instead, unless `CLIENTS_WRITE_MATRIX=1` asks for the doc.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CellResult } from './cells.ts';
import { channelKinds } from './client-gateway.ts';
import { clients } from './client-list.ts';
import { wantsLatest } from './install-clients.ts';
import { knownFailure } from './known-failures.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const START = '<!-- clients-matrix:start -->';
const END = '<!-- clients-matrix:end -->';

const kindTitles: Record<string, string> = {
  anthropic: 'anthropic',
  'openai-responses': 'openai, `responses_api`',
  openai: 'openai',
  gemini: 'gemini',
  bedrock: 'bedrock',
  azure: 'azure',
};
const formatTitles: Record<string, string> = {
  anthropic: 'Messages',
  'openai-responses': 'Responses',
  openai: 'Chat Completions',
  gemini: 'Gemini',
};

export function matrixSection(results: CellResult[]): string {
  const reasons: string[] = [];
  const rows = clients.flatMap((client) =>
    (['text', 'tool'] as const).map((check) => {
      const cells = channelKinds.map((kind) => {
        const result = results.find(
          (entry) => entry.client === client.name && entry.kind === kind && entry.check === check,
        );
        if (!result) return 'not run';
        const native = client.format === kind ? ' (native)' : '';
        if (result.passed) return `pass${native}`;
        const known = knownFailure(client.name, kind, check);
        reasons.push(
          `${client.title}, ${check}, ${kindTitles[kind]}: ${known ? `${known}. ` : ''}${result.reason ?? ''}`,
        );
        return `**fail** [${reasons.length}]${native}`;
      });
      const version = results.find((entry) => entry.client === client.name)?.version ?? '';
      const what = check === 'text' ? 'plain prompt' : 'tool loop (reads a file)';
      const name = client.sdk ? `${client.title} (${version})` : `${client.title} ${version}`;
      return `| ${name} | ${formatTitles[client.format]} | ${what} | ${cells.join(' | ')} |`;
    }),
  );
  return [
    START,
    `| client | format | check | ${channelKinds.map((kind) => kindTitles[kind]).join(' | ')} |`,
    `|---|---|---|${channelKinds.map(() => '---').join('|')}|`,
    ...rows,
    '',
    ...(reasons.length > 0
      ? reasons.map((reason, index) => `${index + 1}. ${reason.replaceAll('|', '\\|')}`)
      : ['Every cell passes.']),
    END,
  ].join('\n');
}

export function writeMatrix(results: CellResult[]): void {
  const section = matrixSection(results);
  if (wantsLatest() && process.env.CLIENTS_WRITE_MATRIX !== '1') {
    mkdirSync(`${root}test/artifacts`, { recursive: true });
    writeFileSync(`${root}test/artifacts/clients-latest.md`, `${section}\n`);
    return;
  }
  const file = `${root}docs/clients.md`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : `${START}\n${END}\n`;
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < 0) throw new Error(`docs/clients.md has lost its markers ${START} and ${END}`);
  writeFileSync(file, `${text.slice(0, start)}${section}${text.slice(end + END.length)}`);
}
