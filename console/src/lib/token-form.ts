/**
 * The fields of a key's settings as the form holds them (text while typed), and the requests they
 * become: creation sends only what was filled in, an edit sends every field (emptied is null, no limit).
 */

import type { BudgetPeriod, CreateTokenRequest, TokenView, UpdateTokenRequest } from '@contracts/console-api.ts';
import { metadataLines, parseMetadataLines } from './metadata-lines.ts';

export const BUDGET_PERIODS: BudgetPeriod[] = ['total', 'daily', 'weekly', 'monthly'];

export interface TokenFormFields {
  name: string;
  /** `YYYY-MM-DD`; the key works through that whole day, in the user's time zone */
  expiresOn: string;
  // v-model on a number input yields a number once typed in, '' while empty.
  quota: string | number;
  budget: string | number;
  period: BudgetPeriod;
  models: string[];
  ipAllowlist: string;
  rpm: string | number;
  tpm: string | number;
  /** default metadata as `key=value` lines (metadata-lines.ts) */
  metadata: string;
  /** days each request's body and reply are kept; empty or 0 is off */
  capture: string | number;
}

const text = (value: number | null | undefined) => (value == null ? '' : String(value));

export function tokenFormFields(token: TokenView | null = null): TokenFormFields {
  return {
    name: token?.name ?? '',
    expiresOn: token?.expires_at ? token.expires_at.slice(0, 10) : '',
    quota: text(token?.quota),
    budget: text(token?.budget_usd),
    period: token?.budget_period ?? 'total',
    models: [...(token?.models ?? [])],
    ipAllowlist: (token?.ip_allowlist ?? []).join(', '),
    rpm: text(token?.rpm_limit),
    tpm: text(token?.tpm_limit),
    metadata: metadataLines(token?.metadata),
    capture: text(token?.payload_capture_days || null),
  };
}

export const expiryOf = (fields: TokenFormFields) =>
  fields.expiresOn ? new Date(`${fields.expiresOn}T23:59:59`) : null;

const nonEmpty = (metadata: Record<string, string> | null) =>
  metadata && Object.keys(metadata).length > 0 ? metadata : null;
const numberOrNull = (value: string | number) => (String(value).trim() === '' ? null : Number(value));
const list = (value: string) => value.split(/[,\s]+/).filter(Boolean);

export function updateRequest(fields: TokenFormFields): UpdateTokenRequest {
  const ipAllowlist = list(fields.ipAllowlist);
  return {
    expires_at: expiryOf(fields)?.toISOString() ?? null,
    quota: numberOrNull(fields.quota),
    budget_usd: numberOrNull(fields.budget),
    budget_period: fields.period,
    models: fields.models.length > 0 ? [...fields.models] : null,
    ip_allowlist: ipAllowlist.length > 0 ? ipAllowlist : null,
    rpm_limit: numberOrNull(fields.rpm),
    tpm_limit: numberOrNull(fields.tpm),
    // The dialog refuses lines that do not parse before it sends anything.
    metadata: nonEmpty(parseMetadataLines(fields.metadata)),
    payload_capture_days: numberOrNull(fields.capture) ?? 0,
  };
}

export function createRequest(fields: TokenFormFields): CreateTokenRequest {
  const all = updateRequest(fields);
  const request: CreateTokenRequest = { name: fields.name.trim() };
  for (const [field, value] of Object.entries(all)) {
    // Capture off is the default: a new key sends it only when it is on.
    const off = field === 'payload_capture_days' && value === 0;
    if (value !== null && field !== 'budget_period' && !off) Object.assign(request, { [field]: value });
  }
  // A period alone means nothing: it goes with a budget.
  if (all.budget_usd !== null) request.budget_period = fields.period;
  return request;
}
