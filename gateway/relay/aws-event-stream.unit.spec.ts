/**
 * AWS event-stream framing read into events: messages split anywhere across chunks, exceptions named
 * by their type, and what a hostile upstream may send (a length past the frame limit, a corrupt CRC,
 * a body cut inside a message) ends the stream with an error instead of passing garbage on.
 */
import { describe, expect, it } from 'vitest';
import { encodeConverseStream, encodeEntry } from '../../test/fake-upstream/bedrock-fixtures.ts';
import { AwsEventStreamDecoder } from './aws-event-stream.ts';
import { UpstreamCallError } from './errors.ts';

const entries = [
  { event: 'messageStart', payload: { role: 'assistant' } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Héllo' } } },
  { exception: 'throttlingException', payload: { message: 'Too many tokens' } },
];

describe('AwsEventStreamDecoder', () => {
  it('reads every message whatever the chunk boundaries, one byte at a time included', () => {
    const bytes = encodeConverseStream(entries);
    for (const size of [1, 3, 7, 64, bytes.length]) {
      const decoder = new AwsEventStreamDecoder(1 << 20);
      const events = [];
      for (let at = 0; at < bytes.length; at += size) events.push(...decoder.feed(bytes.subarray(at, at + size)));
      decoder.end();
      expect(events).toEqual([
        { event: 'messageStart', data: '{"role":"assistant"}' },
        { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Héllo"}}' },
        { event: 'throttlingException', data: '{"message":"Too many tokens"}' },
      ]);
    }
  });

  it('refuses a message longer than the frame limit from its length alone', () => {
    const decoder = new AwsEventStreamDecoder(1024);
    const prelude = Buffer.alloc(4);
    prelude.writeUInt32BE(0xfffffff0);
    expect(() => decoder.feed(prelude)).toThrow(expect.objectContaining({ code: 'upstream_frame_too_large' }));
  });

  it('refuses a message whose checksum does not match', () => {
    const message = encodeEntry(entries[1]!);
    message[message.length - 10]! ^= 0xff;
    const decoder = new AwsEventStreamDecoder(1 << 20);
    let error: unknown;
    try {
      decoder.feed(message);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UpstreamCallError);
    expect((error as UpstreamCallError).code).toBe('upstream_bad_reply');
  });

  it('refuses a length too short to be a message, and a body cut inside one', () => {
    const tiny = Buffer.alloc(16);
    tiny.writeUInt32BE(8);
    expect(() => new AwsEventStreamDecoder(1 << 20).feed(tiny)).toThrow(/malformed event-stream message/);
    const decoder = new AwsEventStreamDecoder(1 << 20);
    const message = encodeEntry(entries[0]!);
    expect(decoder.feed(message.subarray(0, message.length - 1))).toEqual([]);
    expect(() => decoder.end()).toThrow(/ended inside a message/);
  });

  it('names an event whose type is not a plain name unknownEvent', () => {
    const decoder = new AwsEventStreamDecoder(1 << 20);
    const [event] = decoder.feed(encodeEntry({ event: 'x\u0000<script>', payload: {} }));
    expect(event!.event).toBe('unknownEvent');
  });
});
