/**
 * The console in a real browser (Debian's Chromium) against a real gateway on the embedded store and a
 * fake upstream; the journey is in support/console-journey.ts, screenshots in test/artifacts/embedded/.
 */
import { consoleJourney } from './support/console-journey.ts';

consoleJourney({ label: 'embedded store', artifacts: 'embedded' });
