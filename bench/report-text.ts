/**
 * @module bench/report-text
 * How the report writes numbers and tables (Markdown), shared by its sections.
 */

export const fixed = (value: number | undefined, digits = 2) =>
  value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);
export const signed = (value: number | undefined, digits = 2) =>
  value === undefined || Number.isNaN(value) ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
export const whole = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '–' : Math.round(value).toLocaleString('en');
export const megabytes = (bytes: number | undefined) => (bytes === undefined ? '–' : `${(bytes / 1e6).toFixed(0)}`);

export const mark = (met: boolean | null) => (met === null ? '—' : met ? 'met' : '**missed**');

/** A Markdown table; the first column and the columns listed in `left` are left-aligned, the rest right. */
export function table(header: string[], rows: string[][], left: number[] = []): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, index) => (index === 0 || left.includes(index) ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
