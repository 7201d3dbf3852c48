/**
 * The CLI loads only the module of the command it runs (src/cli/commands/index.ts): a long-running
 * `baton agent` keeps no other command's code in its heap. `baton --help` still lists every command.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { commands, commandsToLoad } from '../../src/cli/commands/index.js';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { BATON_ARGV } from '../helpers/cli.js';

function captureIO(): CliIO & { out: string } {
  const io = { out: '', isTTY: false, cwd: process.cwd(), exitCode: 0, stdout: (t: string) => { io.out += t; }, stderr: () => {} };
  return io;
}

const names = commands.map((c) => c.name);

describe('commandsToLoad', () => {
  it('loads only the command the first argument names', () => {
    expect(commandsToLoad(['node', 'baton', 'agent', '--once']).map((c) => c.name)).toEqual(['agent']);
    expect(commandsToLoad(['node', 'baton', 'plan', 'status', 'x']).map((c) => c.name)).toEqual(['plan']);
  });

  it('loads every command when none is named: help, version, a misspelt name', () => {
    for (const argv of [['node', 'baton'], ['node', 'baton', '--help'], ['node', 'baton', 'help', 'agent'], ['node', 'baton', 'agnet'], undefined]) {
      expect(commandsToLoad(argv).map((c) => c.name), JSON.stringify(argv)).toEqual(names);
    }
  });
});

describe('the command registry', () => {
  it.each(commands.map((c) => [c.name, c] as const))('%s: its module registers the command of that name, and only it', async (name, entry) => {
    const program = new Command('baton');
    (await entry.load())(program, captureIO());
    expect(program.commands.map((c) => c.name())).toEqual([name]);
  });

  it('baton --help lists every command', async () => {
    const io = captureIO();
    expect(await main(['node', 'baton', '--help'], io)).toBe(0);
    const listed = io.out.split('\n').map((l) => /^ {2}(\S+)/.exec(l)?.[1]).filter((n) => n !== undefined);
    for (const name of names) expect(listed, name).toContain(name);
  });
});

describe('modules a process loads (a child process with a resolve hook that logs every module)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-lazy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'hooks.mjs'), [
    "import { appendFileSync } from 'node:fs';",
    'export async function resolve(specifier, context, next) {',
    '  const resolved = await next(specifier, context);',
    "  if (resolved.url.startsWith('file:')) appendFileSync(process.env.BATON_MODULE_LOG, `${resolved.url}\\n`);",
    '  return resolved;',
    '}',
  ].join('\n'));
  writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister(new URL('./hooks.mjs', import.meta.url));\n");

  /** The command modules (src/cli/commands/*.ts) that `baton ...args` loaded. */
  async function commandModules(args: string[]): Promise<string[]> {
    const log = join(dir, `${args.join('-')}.log`);
    writeFileSync(log, '');
    const [node = '', ...rest] = BATON_ARGV;
    const code = await new Promise<number | null>((resolveExit) => {
      const child = spawn(node, [...rest.slice(0, 2), '--import', join(dir, 'register.mjs'), ...rest.slice(2), ...args], { env: { ...process.env, BATON_MODULE_LOG: log }, stdio: 'ignore' });
      child.once('exit', resolveExit);
    });
    expect(code).toBe(0);
    const loaded = readFileSync(log, 'utf8').split('\n').map((url) => /\/src\/cli\/commands\/([^/]+)\.ts$/.exec(url)?.[1]).filter((n) => n !== undefined);
    return [...new Set(loaded)].sort();
  }

  it('baton agent --help loads the agent command only (every command module before)', async () => {
    expect(await commandModules(['agent', '--help'])).toEqual(['agent', 'index']);
  }, 60_000);

  it('baton --help loads every command module', async () => {
    const loaded = await commandModules(['--help']);
    for (const name of names) expect(loaded, name).toContain(name);
  }, 60_000);
});
