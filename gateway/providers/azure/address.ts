/**
 * @module gateway/providers/azure/address
 * Where and how an `azure` channel's requests go. `base_url` is the resource's endpoint
 * (`https://{resource}.openai.azure.com`); the deployment is the upstream model name after the
 * channel's model_mapping, and names the route: `{base_url}/openai/deployments/{deployment}/{operation}
 * ?api-version=…`. The Responses API lives on Azure's v1 surface instead (`{base_url}/openai/v1/responses`,
 * the deployment in the body's `model`), which takes no api-version. The key goes as `api-key`, never
 * as a bearer token (Azure reads a bearer token as a Microsoft Entra ID token).
 * @see https://learn.microsoft.com/azure/ai-foundry/openai/reference
 */
import { defaultAzureApiVersion } from '../../../contracts/azure/channel-settings.ts';
import type { RoutableChannel } from '../upstream-route.ts';

type AzureChannel = Pick<RoutableChannel, 'baseUrl' | 'apiKey' | 'apiVersion'>;

/** A deployment route. The name is the operator's and may hold any character: it is encoded as one path segment. */
export function deploymentUrl(channel: AzureChannel, deployment: string, operation: 'chat/completions' | 'embeddings') {
  const version = encodeURIComponent(channel.apiVersion ?? defaultAzureApiVersion);
  return `${channel.baseUrl}/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=${version}`;
}

export function responsesUrl(channel: AzureChannel): string {
  return `${channel.baseUrl}/openai/v1/responses`;
}

export function azureHeaders(channel: AzureChannel, stream: boolean): Record<string, string> {
  return {
    'api-key': channel.apiKey,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
}
