/**
 * @module test/support/honest-upstream
 * The whole-request holds scenario's upstream, shared by the embedded and the cluster suites: it
 * bills what it receives, 4 characters a token of the messages it is sent and every choice at its
 * full `max_tokens`, at 1 and 2 USD per million tokens, and notes each request's cost as it billed it.
 */
import type { ScriptedUpstream } from './scripted-upstream.ts';

/** A prompt token costs 1,000 nano-dollars, a completion token 2,000 (the model's price lines below). */
export const PROMPT_NANO = 1_000;
export const COMPLETION_NANO = 2_000;
export const HONEST_MODEL = 'honest-model';
/** The config file's price of the model, as the upstream bills it. */
export const HONEST_PRICE_LINES = ['prices:', `  ${HONEST_MODEL}: { input_per_million: 1, output_per_million: 2 }`];

/** A stored conversation's shape: TURNS turns of TURN_BYTES of input each. */
export const TURNS = 10;
export const TURN_BYTES = 40_000;

/** The upstream's script; each request's cost, in nano-dollars, is pushed onto `billed`. */
export function honestUpstream(billed: number[]): ScriptedUpstream['script'] {
  return ({ body }) => {
    const choices = typeof body['n'] === 'number' ? body['n'] : 1;
    const limit = (body['max_completion_tokens'] ?? body['max_tokens'] ?? 16) as number;
    const prompt = Math.ceil(JSON.stringify(body['messages']).length / 4);
    const completion = choices * limit;
    billed.push(prompt * PROMPT_NANO + completion * COMPLETION_NANO);
    return {
      status: 200,
      json: {
        id: `chatcmpl-${billed.length}`,
        object: 'chat.completion',
        created: 1,
        model: body['model'],
        choices: Array.from({ length: choices }, (_, index) => ({
          index,
          message: { role: 'assistant', content: 'ok' },
          finish_reason: 'length',
        })),
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      },
    };
  };
}

/** A turn that continues `previous`: the gateway adds the stored turns to what the upstream receives. */
export const continuation = (previous: string) => ({
  model: HONEST_MODEL,
  input: 'And then?',
  max_output_tokens: 16,
  previous_response_id: previous,
});

/** 128 choices of up to 100 tokens: 12,800 completion tokens, some $0.0256 a request. */
export const manyChoices = {
  model: HONEST_MODEL,
  n: 128,
  max_tokens: 100,
  messages: [{ role: 'user', content: 'hi' }],
};

/** The input of turn `turn` of a stored conversation. */
export const turnInput = (turn: number) => `turn ${turn} `.padEnd(TURN_BYTES, 'lorem ipsum ');
