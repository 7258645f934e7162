/**
 * @module contracts/azure/channel-settings
 * The settings an `azure` channel adds to the common ones. `api_version` is the `api-version` query
 * parameter of the deployment routes (`/openai/deployments/{deployment}/…`); absent means
 * `defaultAzureApiVersion`, the newest generally available data-plane version when this was written.
 * @see https://learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle
 */
import { z } from 'zod';

export const defaultAzureApiVersion = '2024-10-21';

/** A dated version, GA (`2024-10-21`) or preview (`2025-04-01-preview`): it goes into the upstream URL. */
export const azureApiVersionSchema = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'must be an Azure OpenAI API version such as 2024-10-21');
