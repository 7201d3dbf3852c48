/**
 * The demo (`npm start` runs `baton demo`): on a fresh folder it deploys the template's instances
 * through the agent, previews and applies a value change, prints the history, and ends by itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-demo-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('baton demo', () => {
  it('deploys every template instance, runs the plan a value change triggers, prints the history, and exits 0', async () => {
    const io = { out: '', err: '', isTTY: false, cwd: dir, exitCode: 0, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) } satisfies CliIO & { out: string; err: string };
    const code = await main(['node', 'baton', 'demo', '--dir', join(dir, 'demo')], io);
    expect(code, io.out + io.err).toBe(0);
    for (const line of ['platform/zk: deploy COMPLETE', 'shop/cache: deploy COMPLETE', 'shop/orders-db: deploy COMPLETE', 'shop/cache: runs update (values changed: MAXMEMORY)', 'shop/cache: update COMPLETE']) {
      expect(io.out).toContain(line);
    }
    expect(io.out).toMatch(/shop\/cache: update COMPLETE in \d+s/);
    expect(io.out).toContain('== Continue by hand');
    // The demo's passwords are sensitive values: never printed.
    expect(io.out).not.toContain('demo-only-change-me');
  }, 240_000);
});
