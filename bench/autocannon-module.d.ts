/** The part of autocannon's API that bench/autocannon-child.ts uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** seconds */
    duration?: number;
  }

  function autocannon(options: Options): EventEmitter;
  export default autocannon;
}
