import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/sync/settings.js';

describe('--shard-set', () => {
  it('GIVEN --shard-set WHEN resolved THEN the agent is a shard member and elects no leader', () => {
    const s = resolveSettings({ repo: '/tmp/r', shardSet: 'prod-eu' }, {}, '/');
    expect(s.shardSet).toBe('prod-eu');
    expect(s.leaderElection).toBe(false);
    expect(resolveSettings({ repo: '/tmp/r' }, { BATON_SHARD_SET: 'baton' }, '/').shardSet).toBe('baton');
    expect(resolveSettings({ repo: '/tmp/r' }, {}, '/').leaderElection).toBe(true);
  });

  it.each([
    ['a bad name', { shardSet: 'Prod_EU' }, {}, /flag --shard-set: expected a lowercase DNS label of at most 40 characters .*got "Prod_EU"/],
    ['a bad name from the environment', {}, { BATON_SHARD_SET: 'x'.repeat(41) }, /\$BATON_SHARD_SET --shard-set: expected a lowercase DNS label/],
    ['--once', { shardSet: 'baton', once: true }, {}, /flag --shard-set: expected no --once/],
    ['a renew deadline leaving no room for the retry period', { shardSet: 'baton', leaseDuration: '15s', renewDeadline: '14s' }, {},
      /flag --renew-deadline: expected with --shard-set, renew deadline \+ retry period shorter than the lease duration \(14000 \+ 2000 ms, lease 15000 ms\)/],
  ])('GIVEN %s THEN a clear error naming the source', (_name, flags, env, message) => {
    expect(() => resolveSettings({ repo: '/tmp/r', ...flags }, env, '/')).toThrow(message);
  });

  it('GIVEN lease timing a single agent accepts but a shard member cannot use THEN only --shard-set refuses it', () => {
    expect(resolveSettings({ repo: '/tmp/r', leaseDuration: '15s', renewDeadline: '14s' }, {}, '/').lease.renewDeadlineMs).toBe(14_000);
    expect(resolveSettings({ repo: '/tmp/r', shardSet: 'baton' }, {}, '/').lease).toEqual({ durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  });
});
