/**
 * @module test/support/console-client
 * A tiny cookie-keeping client of the console API, sending `Origin` as a browser on the site would.
 */
import type { CreatedToken, UserView } from '../../contracts/console-api.ts';

// Tests read arbitrary fields of answers; the contract types are asserted where it matters.
type ConsoleResponseBody = any;

export class ConsoleClient {
  readonly baseUrl: string;
  #cookie = '';

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: ConsoleResponseBody }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        origin: this.baseUrl,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(this.#cookie && { cookie: this.#cookie }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.#cookie = setCookie.split(';')[0]!;
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  async register(email: string, password = 'correct horse battery'): Promise<UserView> {
    const response = await this.call('POST', '/api/auth/register', { email, password });
    if (response.status !== 201)
      throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  }

  async createToken(name: string, extra: Record<string, unknown> = {}): Promise<CreatedToken> {
    const response = await this.call('POST', '/api/tokens', { name, ...extra });
    if (response.status !== 201)
      throw new Error(`create token failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  }
}
