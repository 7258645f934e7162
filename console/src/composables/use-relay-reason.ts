/**
 * The reason of a request the gateway itself refused or failed, in the console's language, from the
 * code the usage log recorded (locales/relay-errors.ts); null for an error type the console does not
 * know (an upstream's own), which is then shown as recorded.
 */
import type { UsageLogEntry } from '@contracts/console-api.ts';
import { useI18n } from 'vue-i18n';

export function useRelayReason() {
  const { t, te } = useI18n();
  return (item: Pick<UsageLogEntry, 'error_type'>): string | null =>
    item.error_type && te(`relayErrors.${item.error_type}`) ? t(`relayErrors.${item.error_type}`) : null;
}
