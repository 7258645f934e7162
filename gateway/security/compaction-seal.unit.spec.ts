import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isGatewaySeal, openSummary, sealSummary } from './compaction-seal.ts';

const key = randomBytes(32);

describe('compaction seals', () => {
  it('open for the account they were made for, and hide the summary', () => {
    const sealed = sealSummary('the user wants the parser fixed', key, 'user-1');
    expect(isGatewaySeal(sealed)).toBe(true);
    expect(sealed).not.toContain('parser');
    expect(openSummary(sealed, key, 'user-1')).toBe('the user wants the parser fixed');
  });

  it('do not open for another account, another key, or once altered', () => {
    const sealed = sealSummary('summary', key, 'user-1');
    expect(openSummary(sealed, key, 'user-2')).toBeNull();
    expect(openSummary(sealed, randomBytes(32), 'user-1')).toBeNull();
    const flipped = `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'BA' : 'AA'}`;
    expect(openSummary(flipped, key, 'user-1')).toBeNull();
    expect(openSummary('gwc1.x.y', key, 'user-1')).toBeNull();
  });

  it('tell OpenAI’s encrypted content apart: not the gateway’s to open', () => {
    expect(isGatewaySeal('gAAAAABo6QxTq3Vh')).toBe(false);
    expect(openSummary('gAAAAABo6QxTq3Vh', key, 'user-1')).toBeNull();
  });
});
