/** `baton preview` exit codes and output formats, through the CLI in-process. */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { FixtureRepo } from './fixture-repo.js';

function captureIO(cwd: string): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', isTTY: false, cwd, exitCode: 0, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

let repo: FixtureRepo | undefined;
afterEach(() => repo?.cleanup());

function changedRepo(params: Record<string, unknown>): FixtureRepo {
  repo = new FixtureRepo();
  repo.instance('prod', 'cache', '1.0.0', { PASSWORD: 'pw-0000', REPLICAS: 1 });
  repo.commit('base');
  repo.instance('prod', 'cache', '1.0.0', { PASSWORD: 'pw-0000', ...params });
  repo.commit('change');
  return repo;
}

describe('baton preview (CLI)', () => {
  it.each([
    ['an acceptable change exits 0 with JSON output', { REPLICAS: 2 }, ['-o', 'json'], 0, '"acceptable": true'],
    ['a refused change exits 1', { STORAGE_CLASS: 'fast' }, ['-o', 'text'], 1, 'REFUSED'],
  ])('%s', async (_name, params, flags, code, text) => {
    const r = changedRepo(params);
    const io = captureIO(r.dir);
    expect(await main(['node', 'baton', 'preview', '--base', 'HEAD~1', '--head', 'HEAD', ...flags], io)).toBe(code);
    expect(io.out).toContain(text);
  });

  it.each([
    ['an unknown output format', ['--base', 'HEAD~1', '--head', 'HEAD', '-o', 'xml'], 'expected markdown, json or text'],
    ['a missing --head', ['--base', 'HEAD~1'], "required option '--head <ref>' not specified"],
  ])('%s is a usage error (exit 2)', async (_name, flags, message) => {
    const r = changedRepo({ REPLICAS: 2 });
    const io = captureIO(r.dir);
    expect(await main(['node', 'baton', 'preview', ...flags], io)).toBe(2);
    expect(io.err).toContain(message);
  });

  it.each([
    ['an unknown ref', ['--base', 'nope', '--head', 'HEAD'], 'no such commit'],
  ])('%s is a failure of the input, not of the command line (exit 1)', async (_name, flags, message) => {
    const r = changedRepo({ REPLICAS: 2 });
    const io = captureIO(r.dir);
    expect(await main(['node', 'baton', 'preview', ...flags], io)).toBe(1);
    expect(io.err).toContain(message);
  });
});
