/** Number, time and duration formatting in the console's current locale. */

export function formatNumber(value: number, locale: string): string {
  return new Intl.NumberFormat(locale).format(value);
}

/** 1.2K, 3.4M: for cards and axes. */
export function formatCompact(value: number, locale: string): string {
  return new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(value);
}

/**
 * USD: cents from a dollar up; below, enough digits that a request's fraction of a cent shows
 * ($0.000251), at most six (the micro-dollar).
 */
export function formatUsd(value: number, locale: string): string {
  const digits =
    value === 0 || Math.abs(value) >= 1 ? 2 : Math.min(6, Math.max(2, 2 - Math.floor(Math.log10(Math.abs(value)))));
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: digits,
  }).format(value);
}

export function formatPercent(ratio: number, locale: string): string {
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(ratio);
}

export function formatDateTime(iso: string | null, locale: string): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

export function formatDate(iso: string | null, locale: string): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(new Date(iso));
}

/**
 * Axis labels in the overview's time zone: `14:00` for hours within a day, `Mar 3 14:00` for hours
 * over several days (a 30-day hourly chart must say which day), `Mar 3` for days.
 */
export function formatBucket(
  iso: string,
  granularity: 'hour' | 'day',
  locale: string,
  timeZone?: string,
  spansDays = false,
): string {
  const options: Intl.DateTimeFormatOptions =
    granularity === 'day'
      ? { month: 'short', day: 'numeric' }
      : spansDays
        ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
        : { hour: '2-digit', minute: '2-digit' };
  return new Intl.DateTimeFormat(locale, { ...options, ...(timeZone && { timeZone }) }).format(new Date(iso));
}

export function formatDuration(ms: number | null, locale: string): string {
  if (ms === null || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${formatNumber(Math.round(ms), locale)} ms`;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(ms / 1000)} s`;
}

/** A log row's time: to the second, since a page often holds many requests of one minute. */
export function formatTimeOfDay(iso: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(new Date(iso));
}

/** The whole timestamp, milliseconds and time zone included: for a hover, and for matching server logs. */
export function formatFullTimestamp(iso: string, locale: string): string {
  const date = new Date(iso);
  const local = new Intl.DateTimeFormat(locale, {
    dateStyle: 'full',
    timeStyle: 'long',
  }).format(date);
  return `${local} (${iso})`;
}
