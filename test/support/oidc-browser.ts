/**
 * @module test/support/oidc-browser
 * A browser made of HTTP requests for single sign-on tests: it keeps cookies, follows redirects, and
 * fills in the test provider's login and consent forms as a person would, until the gateway answers
 * with something other than a redirect into the provider.
 */

export interface Hop {
  url: string;
  status: number;
  location: string | null;
}

export class OidcBrowser {
  /** cookie name → value; the gateway's and the provider's names differ, and both are on 127.0.0.1 */
  readonly cookies = new Map<string, string>();

  #keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((attribute) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        ...(cookie && { cookie }),
        ...(init.form && { 'content-type': 'application/x-www-form-urlencoded' }),
        ...init.headers,
      },
      ...(init.form && { body: new URLSearchParams(init.form).toString() }),
    });
    this.#keep(response);
    return response;
  }

  /**
   * From `startUrl`, follows redirects and submits the provider's forms (logging in as `login`) until
   * a URL `until` accepts is reached, which is not requested. Answers the hops and that URL.
   */
  async signIn(startUrl: string, login: string, until: (url: URL) => boolean): Promise<{ hops: Hop[]; url: URL }> {
    const hops: Hop[] = [];
    let url = new URL(startUrl);
    let form: Record<string, string> | undefined;
    for (let step = 0; step < 20; step++) {
      if (until(url)) return { hops, url };
      const response = await this.request(url.href, form ? { method: 'POST', form } : {});
      const location = response.headers.get('location');
      hops.push({ url: url.href, status: response.status, location });
      form = undefined;
      if (location) {
        url = new URL(location, url);
        continue;
      }
      const page = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
      if (!action) throw new Error(`no redirect and no form at ${url.href}: ${response.status} ${page.slice(0, 300)}`);
      form = prompt === 'login' ? { prompt, login, password: 'any password' } : { prompt: 'consent' };
      url = new URL(action.replaceAll('&amp;', '&'), url);
    }
    throw new Error(`sign-in did not finish: ${JSON.stringify(hops)}`);
  }
}
