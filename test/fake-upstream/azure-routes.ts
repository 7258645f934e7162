/**
 * The fake's Azure OpenAI: deployment routes (`/openai/deployments/{deployment}/chat/completions` and
 * `/embeddings`, each needing `?api-version=`) and the v1 Responses route (`/openai/v1/responses`),
 * all authenticated with an `api-key` header as Azure does (a bearer token would be an Entra ID
 * token, which the fake does not accept). Cases are `azure-<case>` fixtures, and the OpenAI ones where
 * Azure answers exactly as OpenAI does (`openai-responses-<case>` for the Responses API, the
 * embeddings reply).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { hasFixture, type JsonFixture, loadJsonFixture, type Provider } from './fixtures.ts';

const deploymentRoute = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/;
export const AZURE_RESPONSES_PATH = '/openai/v1/responses';

export function azureProviderForPath(path: string): Provider | undefined {
  if (deploymentRoute.test(path)) return 'azure';
  if (path === AZURE_RESPONSES_PATH) return 'azure-responses';
  return undefined;
}

export function isAzureEmbeddingsPath(path: string): boolean {
  return deploymentRoute.exec(path)?.[2] === 'embeddings';
}

/** The deployment a request named, decoded as Azure decodes the path segment. */
export function azureDeploymentOf(path: string): string | undefined {
  const name = deploymentRoute.exec(path)?.[1];
  return name === undefined ? undefined : decodeURIComponent(name);
}

/** Where an Azure case falls back to when Azure answers it as OpenAI does. */
export function openAICounterpart(provider: Provider): Provider | undefined {
  if (provider === 'azure') return 'openai';
  if (provider === 'azure-responses') return 'openai-responses';
  return undefined;
}

export function azureCaseExists(caseName: string): boolean {
  return hasFixture(`azure-${caseName}`) || hasFixture(`azure-${caseName}-stream`);
}

/** Azure's answers to a request without a valid `api-key`, or a deployment route without `api-version`. */
export function azureAuthenticationFailure(
  provider: Provider,
  headers: IncomingHttpHeaders,
  search: URLSearchParams,
  acceptedKey: string | undefined,
): JsonFixture | undefined {
  const key = headers['api-key'];
  const given = Array.isArray(key) ? key[0] : key;
  if (!given || (acceptedKey !== undefined && given !== acceptedKey)) return loadJsonFixture('azure-error-401');
  // The deployment routes are versioned; without a version Azure does not find the route.
  if (provider === 'azure' && !search.get('api-version')) return loadJsonFixture('azure-error-404');
  return undefined;
}
