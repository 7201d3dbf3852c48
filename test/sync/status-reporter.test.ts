/**
 * The status reporter masks sensitive values in everything that reaches Git: the status file, the
 * commit subject and the trailers (git log keeps them for good).
 */
import { describe, expect, it } from 'vitest';
import { StatusReporter, recordBook } from '../../src/sync/status-reporter.js';
import type { StatusUpdate, StatusWriter } from '../../src/sync/status-writer.js';

function capture(): { writer: StatusWriter; updates: StatusUpdate[] } {
  const updates: StatusUpdate[] = [];
  return { writer: { submit: (u: StatusUpdate) => void updates.push(u) } as unknown as StatusWriter, updates };
}

describe('the status reporter', () => {
  it('GIVEN a failure message quoting a sensitive value WHEN written THEN the file, the subject and the trailers carry it masked', () => {
    const { writer, updates } = capture();
    const reporter = new StatusReporter(writer, {
      key: { namespace: 'shop', name: 'site' }, framework: { name: 'web', version: '1.0.0' }, sourceCommit: 'a'.repeat(40),
      observed: { instance: 'b'.repeat(40) }, sensitiveValues: [], schedules: [], now: () => '2026-11-22T00:00:00Z',
    }, undefined, recordBook());
    reporter.setSensitiveValues(['hunter2-secret']);
    reporter.write({ ...reporter.transition('plan-failed', 'FATAL_ERROR'), plan: 'deploy', message: 'apply failed: data.password: Invalid value: "hunter2-secret"' });
    expect(updates).toHaveLength(1);
    const text = JSON.stringify(updates[0]);
    expect(text).not.toContain('hunter2-secret');
    expect(updates[0]?.summary).toContain('Invalid value');
  });
});

describe('masking never touches ids', () => {
  it('GIVEN a short sensitive value that occurs inside commit and blob ids WHEN the status is built THEN the ids stay exact and the message is masked', () => {
    const secret = 'd8a1';
    const commit = `00aa${secret}00aa${'0'.repeat(28)}`;
    const blob = `ff${secret}${'f'.repeat(34)}`;
    const { writer, updates } = capture();
    const reporter = new StatusReporter(writer, {
      key: { namespace: 'shop', name: 'site' }, framework: { name: 'web', version: '1.0.0' }, sourceCommit: commit,
      observed: { instance: blob }, sensitiveValues: [secret], schedules: [], now: () => '2026-11-22T00:00:00Z',
    }, undefined, recordBook());
    reporter.write({ ...reporter.transition('plan-failed', 'FATAL_ERROR'), plan: 'deploy', message: `value ${secret} rejected` });
    expect(reporter.last?.sourceCommit).toBe(commit);
    expect(reporter.last?.observed.instance).toBe(blob);
    expect(updates[0]?.summary).not.toContain(`value ${secret}`);
    expect(updates[0]?.trailers).toEqual(expect.arrayContaining([['Baton-Source-Commit', commit]]));
  });
});
