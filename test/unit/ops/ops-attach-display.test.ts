/**
 * What the daemon's ops show once attached (user trial 2, findings 8 and 10): the account address
 * EIP-55 checksummed on /api/status (as the log lines print it), and the strategy's name (never its
 * params) as a label of mmkit_info.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { displayAddress } from '../../../src/ops/address-display.ts';
import { VirtualClock } from '../../../src/core/clock.ts';
import { DaemonOps } from '../../../src/ops/daemon-ops.ts';
import { stubDaemonParts } from '../../support/daemon-parts.ts';

const LOWER = '0xa779266937853745125938b73d68cd9f57093b6a';
const CHECKSUMMED = '0xa779266937853745125938B73d68Cd9F57093B6a';

function attached(): DaemonOps {
  const clock = new VirtualClock(1_700_000_000_000);
  const ops = new DaemonOps({ clock, log: pino({ level: 'silent' }), version: '1.0.0' });
  (ops as unknown as { attach: (p: unknown) => void }).attach(
    stubDaemonParts({
      kill: { reason: null },
      address: LOWER,
      strategy: { name: 'bands', params: { secretish: 'x' } },
    }),
  );
  return ops;
}

describe('the attached ops', () => {
  it('checksum addresses for display (EIP-55), leave anything else as is', () => {
    expect(displayAddress(LOWER)).toBe(CHECKSUMMED);
    expect(displayAddress(CHECKSUMMED.toUpperCase().replace('0X', '0x'))).toBe(CHECKSUMMED);
    expect(displayAddress('')).toBe('');
  });

  it('show the account address checksummed on /api/status, and label mmkit_info with the strategy name only', async () => {
    const ops = attached();
    expect(ops.monitor.current().account.address).toBe(CHECKSUMMED);
    const m = await ops.metrics.render();
    expect(m).toMatch(/^mmkit_info\{version="1\.0\.0",strategy="bands"\} 1$/m);
    expect(m).not.toContain('secretish');
    await ops.close();
  });
});
