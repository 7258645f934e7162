/**
 * GET /v1/models: the models the key may use, in OpenAI's list shape, or in Anthropic's when the
 * request carries x-api-key and anthropic-version. (@anthropic-ai/sdk 1.x authenticates with
 * `Authorization: Bearer` instead, so the SDK tests here set x-api-key explicitly; see
 * docs/conversion.md, "Known gaps".)
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type ConversionGateway, startConversionGateway } from './support/gateway-clients.ts';

let gateway: ConversionGateway;
const allModels = ['claude-sonnet-4-5', 'claude-think', 'deepseek-reasoner', 'gpt-4o-mini', 'gpt-mapped'];

beforeAll(async () => {
  gateway = await startConversionGateway('models@example.com');
});
afterAll(async () => gateway.harness.stop());

describe('GET /v1/models', () => {
  it('lists every model of every channel kind in the OpenAI shape for the openai SDK', async () => {
    const models = [];
    for await (const model of gateway.openai.models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual(allModels);
    expect(models[0]).toMatchObject({ object: 'model', owned_by: 'gateway' });
    expect(Number.isInteger(models[0]!.created)).toBe(true);
  });

  const anthropicWithKeyHeader = (key: string) =>
    new Anthropic({
      baseURL: gateway.harness.baseUrl,
      apiKey: key,
      maxRetries: 0,
      defaultHeaders: { 'x-api-key': key },
    });

  it('answers in the Anthropic shape to x-api-key with anthropic-version, and in OpenAI shape to a bearer alone', async () => {
    const get = (headers: Record<string, string>) =>
      fetch(`${gateway.harness.baseUrl}/v1/models`, { headers }).then((response) => response.json() as Promise<any>);
    const anthropicShape = await get({ 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' });
    expect(anthropicShape).toMatchObject({ has_more: false, first_id: 'claude-sonnet-4-5', last_id: 'gpt-mapped' });
    const openAIShape = await get({ authorization: `Bearer ${gateway.key}` });
    expect(openAIShape.object).toBe('list');
  });

  it('answers in the Anthropic shape for the @anthropic-ai/sdk', async () => {
    const page = await anthropicWithKeyHeader(gateway.key).models.list();
    expect(page.data.map((model) => model.id)).toEqual(allModels);
    expect(page.data[0]).toMatchObject({ type: 'model', display_name: 'claude-sonnet-4-5' });
    expect(Number.isNaN(Date.parse(page.data[0]!.created_at))).toBe(false);
    expect(page.has_more).toBe(false);
  });

  it('lists only the models a limited key may use, in both shapes', async () => {
    const console = new ConsoleClient(gateway.harness.baseUrl);
    await console.register('models-limited@example.com');
    const { key } = await console.createToken('limited', { models: ['gpt-4o-mini', 'claude-sonnet-4-5'] });
    const openai = new OpenAI({ baseURL: `${gateway.harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const anthropic = anthropicWithKeyHeader(key);
    const openAIPage = await openai.models.list();
    expect(openAIPage.data.map((model) => model.id)).toEqual(['claude-sonnet-4-5', 'gpt-4o-mini']);
    expect((await anthropic.models.list()).data.map((model) => model.id)).toEqual(['claude-sonnet-4-5', 'gpt-4o-mini']);
  });

  it('refuses a wrong key in the shape of the client that sent it', async () => {
    const openAIError = await new OpenAI({
      baseURL: `${gateway.harness.baseUrl}/v1`,
      apiKey: 'sk-wrong',
      maxRetries: 0,
    }).models
      .list()
      .catch((caught) => caught);
    expect(openAIError).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(openAIError.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
    const anthropicError = await anthropicWithKeyHeader('sk-wrong')
      .models.list()
      .catch((caught) => caught);
    expect(anthropicError).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(anthropicError.error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });
});
