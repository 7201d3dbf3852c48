import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

function captureIO(): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    isTTY: false,
    cwd: process.cwd(),
    exitCode: 0,
    stdout: (t: string) => { io.out += t; },
    stderr: (t: string) => { io.err += t; },
  };
  return io;
}

describe('the baton CLI', () => {
  it('prints help listing every subcommand and exits 0', async () => {
    const io = captureIO();
    expect(await main(['node', 'baton', '--help'], io)).toBe(0);
    for (const cmd of ['init', 'validate', 'render', 'preview', 'apply', 'agent', 'cluster', 'plan', 'history', 'test']) {
      expect(io.out).toContain(cmd);
    }
  });

  it('treats an unknown subcommand as a usage error (exit 2)', async () => {
    const io = captureIO();
    expect(await main(['node', 'baton', 'bogus'], io)).toBe(2);
    expect(io.err).toContain("unknown command 'bogus'");
  });
});
