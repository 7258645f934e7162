/**
 * @module bench/projector-profile
 * A CPU profile of this process (the bench runs the projector in-process) over the projector's timed
 * span, written as a .cpuprofile file for Chrome's DevTools or `bench/profile.ts`'s summary.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

export async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
