/**
 * A sentence for an error in the console's language: a refused input by the rule its field broke
 * ("The password must be at least 8 characters." / "密码至少需要 8 个字符。"), other `/api` refusals by
 * their code; only a code the console does not know keeps the server's English sentence.
 */
import { useI18n } from 'vue-i18n';
import { ApiRequestError } from '../api/client.ts';

type Translate = (key: string, values?: Record<string, unknown>) => string;
type Exists = (key: string) => boolean;

/** `models[3]` and `models` are the same form field. */
const fieldName = (field: string | undefined) => field?.split(/[.[]/)[0] ?? '';

export function describeError(error: unknown, t: Translate, te: Exists): string {
  if (error instanceof ApiRequestError) {
    if (error.broken && te(`apiErrors.rules.${error.broken.rule}`)) {
      const name = fieldName(error.field);
      const field = te(`apiErrors.fields.${name}`) ? t(`apiErrors.fields.${name}`) : t('apiErrors.fields.unnamed');
      return t(`apiErrors.rules.${error.broken.rule}`, { field, limit: error.broken.limit ?? '' });
    }
    if (te(`apiErrors.${error.code}`)) return t(`apiErrors.${error.code}`);
  }
  return error instanceof Error ? error.message : String(error);
}

export function useErrorMessage() {
  const { t, te } = useI18n();
  return (error: unknown): string => describeError(error, (key, values) => t(key, values ?? {}), te);
}

/** The form field an `/api` error names, if any, for showing the message next to that input. */
export function errorField(error: unknown): string | undefined {
  return error instanceof ApiRequestError ? error.field : undefined;
}
