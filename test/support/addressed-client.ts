/**
 * @module test/support/addressed-client
 * A console client that connects from a chosen loopback source address (127.0.0.x), so that tests of
 * per-address limits can play several machines; it keeps its session cookie like a browser.
 */
import { Agent, fetch } from 'undici';

export class AddressedClient {
  readonly #baseUrl: string;
  readonly #agent: Agent;
  #cookie = '';

  constructor(baseUrl: string, localAddress: string) {
    this.#baseUrl = baseUrl;
    this.#agent = new Agent({ localAddress });
  }

  get cookie(): string {
    return this.#cookie;
  }

  set cookie(value: string) {
    this.#cookie = value;
  }

  // Tests read arbitrary fields of answers.
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
    const response = await fetch(`${this.#baseUrl}${path}`, {
      method,
      dispatcher: this.#agent,
      headers: {
        origin: this.#baseUrl,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(this.#cookie && { cookie: this.#cookie }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.#cookie = setCookie.split(';')[0]!;
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers as unknown as Headers,
      body: text ? JSON.parse(text) : null,
    };
  }
}
