import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The documentation describes what is: the README and the performance doc stay within the length a
 * reader takes in, nothing in the tree speaks of the tracker or of how the project got here, and every
 * relative link in the docs reaches a file and, when it names one, a heading of it.
 */
const root = resolve(__dirname, '../..');
const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const markdown = tracked.filter((file) => file.endsWith('.md') && !file.includes('node_modules/'));
/** As `wc -l` counts them. */
const lines = (file: string) => readFileSync(join(root, file), 'utf8').split('\n').length - 1;

/** References to a tracker a person who clones the repository cannot see, and history in place of state. */
const historyWords = [
  /\bissues? #?\d+/i,
  /\btasks? #\d+/i,
  /\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th)|this|last|previous|earlier) round\b(?![- ]trip)/i,
  /\buntil the \w+ round\b/i,
];
const textFile = /\.(?:ts|mts|mjs|js|vue|md|ya?ml|json|sh|py|css|html)$|(?:^|\/)(?:Dockerfile|run|services|node24)$/;
// Third-party text kept verbatim: OpenAI's schema (a contract fixture) and the lockfile.
const verbatim = [/openai-openapi\.yaml$/, /^package-lock\.json$/, /manual\.unit\.spec\.ts$/];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let unique = slug;
    for (let n = 1; anchors.has(unique); n++) unique = `${slug}-${n}`;
    anchors.add(unique);
  }
  return anchors;
}

describe('the manual', () => {
  it('keeps the README within 300 lines and the performance doc within 400', () => {
    expect(lines('README.md')).toBeLessThanOrEqual(300);
    expect(lines('docs/performance.md')).toBeLessThanOrEqual(400);
  });

  it('has no tracker references or history words in code, tests or docs', () => {
    const found: string[] = [];
    for (const file of tracked) {
      if (!textFile.test(file) || verbatim.some((pattern) => pattern.test(file))) continue;
      const text = readFileSync(join(root, file), 'utf8');
      text.split('\n').forEach((line, index) => {
        if (historyWords.some((pattern) => pattern.test(line))) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('reaches every relative link target and named heading', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(?:[a-z]+:|mailto:)/i.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const destination = path === '' ? join(root, file) : resolve(root, dirname(file), path);
        if (!existsSync(destination)) {
          broken.push(`${file}: ${target}`);
          continue;
        }
        if (anchor && destination.endsWith('.md') && !anchorsOf(destination).has(anchor.toLowerCase())) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
