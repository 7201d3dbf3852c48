/**
 * The CLI conventions, per command: exit 0 success, 1 failure or refusal, 2 usage error only; help
 * wrapped to 100 columns with each default shown once; one flag name per meaning with the old
 * spellings kept as warned aliases. (docs/reference/cli.md states them.)
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { HELP_WIDTH } from '../../src/cli/conventions.js';
import { ROOT } from '../helpers/cli.js';

function captureIO(cwd = ROOT): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    isTTY: false,
    cwd,
    exitCode: 0,
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
  };
  return io;
}

async function baton(args: string[], cwd = ROOT): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO(cwd);
  const code = await main(['node', 'baton', ...args], io);
  return { code: code === 0 ? io.exitCode : code, out: io.out, err: io.err };
}

const BASIC = 'test/fixtures/repos/basic';
const DEMO = `${BASIC}/instances/apps/demo.yaml`;
const scratch = mkdtempSync(join(tmpdir(), 'baton-conventions-'));
const notGit = join(scratch, 'plain');
mkdirSync(notGit);
const deadKubeconfig = join(scratch, 'dead.kubeconfig');
writeFileSync(
  deadKubeconfig,
  'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\nusers: [{name: u, user: {}}]\n' +
    'contexts: [{name: far-away, context: {cluster: c, user: u}}]\ncurrent-context: far-away\n',
);

/** [command, arguments, exit code, text stderr must contain]. One row per outcome per command. */
const TABLE: [string, string[], 0 | 1 | 2, string][] = [
  ['init', ['init', join(scratch, 'new-repo')], 0, ''],
  ['init', ['init', BASIC], 1, ''],
  ['init', ['init', 'a', 'b'], 2, 'too many arguments'],
  ['new framework', ['new', 'framework', 'web', '--repo', join(scratch, 'fw-repo')], 0, ''],
  ['new framework', ['new', 'framework', 'web', '--repo', join(scratch, 'fw-repo')], 1, 'exists'],
  ['new framework', ['new', 'framework', 'Not_A_Label', '--repo', scratch], 2, 'DNS-1123'],
  ['new framework', ['new', 'framework', 'web', '--port', 'x'], 2, 'port number'],
  ['validate', ['validate', BASIC], 0, ''],
  ['validate', ['validate', 'no/such/path'], 1, 'no such file'],
  ['validate', ['validate', '-o', 'xml'], 2, 'expected text or json'],
  ['render', ['render', DEMO], 0, ''],
  ['render', ['render', 'no/such.yaml'], 1, 'no such file'],
  ['render', ['render', DEMO, '--arg', 'REPLICAS=abc'], 1, 'PLAN_ARG_UNKNOWN'],
  ['render', ['render', DEMO, '--arg', 'novalue'], 2, 'expected KEY=VALUE'],
  ['render', ['render'], 2, "missing required argument 'instance-file'"],
  ['preview', ['preview', '--base', 'nope', '--head', 'HEAD', '--git', notGit], 1, notGit],
  ['preview', ['preview', '--head', 'HEAD'], 2, "required option '--base <ref>'"],
  ['apply', ['apply', 'no/such.yaml'], 1, 'no such file'],
  ['apply', ['apply', DEMO, '--kubeconfig', deadKubeconfig], 1, 'baton cluster start'],
  ['apply', ['apply', DEMO, '--arg', 'A=1'], 2, '--arg needs --plan'],
  ['apply', ['apply', DEMO, '--wait-for-dependencies', 'soon'], 2, 'expected a duration'],
  ['apply', ['apply', DEMO, '--wait-for-dependencies', '1m', '--ignore-dependencies'], 2, 'exclude each other'],
  ['apply', ['apply', DEMO, '--cluster', 'nowhere'], 2, '--cluster nowhere: baton.yaml declares no clusters'],
  ['delete', ['delete', 'no/such.yaml'], 1, 'no such file'],
  ['delete', ['delete'], 2, 'missing required argument'],
  ['plan status', ['plan', 'status', 'apps/demo', '--kubeconfig', deadKubeconfig], 1, 'context far-away'],
  ['plan status', ['plan', 'status', 'not-a-key'], 2, 'expected namespace/instance'],
  ['plan trigger', ['plan', 'trigger', 'apps/demo', 'backup', '--git', notGit], 1, notGit],
  ['plan trigger', ['plan', 'trigger', 'demo', 'backup'], 2, 'expected <namespace>/<name>'],
  ['plan check', ['plan', 'check', `${BASIC}/instances/apps/nope.yaml`], 1, 'nope.yaml'],
  ['plan check', ['plan', 'check', 'not-a-key'], 2, 'expected namespace/instance'],
  ['plan pause', ['plan', 'pause', 'apps/demo', '--kubeconfig', deadKubeconfig], 1, 'no such file'],
  ['plan pause', ['plan', 'pause', 'demo'], 2, 'expected <namespace>/<instance>'],
  ['plan resume', ['plan', 'resume', 'apps/demo', '--kubeconfig', deadKubeconfig], 1, 'no such file'],
  ['plan resume', ['plan', 'resume', 'demo'], 2, 'expected <namespace>/<instance>'],
  ['plan stop', ['plan', 'stop', 'apps/demo', '--kubeconfig', deadKubeconfig], 1, 'no such file'],
  ['plan stop', ['plan', 'stop', 'demo'], 2, 'expected <namespace>/<instance>'],
  ['plan retry', ['plan', 'retry', 'apps/demo', '--kubeconfig', deadKubeconfig], 1, 'no such file'],
  ['plan retry', ['plan', 'retry', 'demo'], 2, 'expected <namespace>/<instance>'],
  ['plan restart', ['plan', 'restart', 'apps/demo', '--kubeconfig', deadKubeconfig], 1, 'no such file'],
  ['plan restart', ['plan', 'restart', 'demo'], 2, 'expected <namespace>/<instance>'],
  ['plan continue', ['plan', 'continue', 'apps/demo', '--kubeconfig', deadKubeconfig], 1, 'no such file'],
  ['plan continue', ['plan', 'continue', 'demo'], 2, 'expected <namespace>/<instance>'],
  ['plan force-complete', ['plan', 'force-complete', 'apps/demo', '--phase', 'p', '--step', 's', '--reason', 'r', '--kubeconfig', deadKubeconfig], 1, 'no such file'],
  ['plan force-complete', ['plan', 'force-complete', 'demo', '--phase', 'p', '--step', 's', '--reason', 'r'], 2, 'expected <namespace>/<instance>'],
  ['plan pause', ['plan', 'pause', 'apps/demo', '--git', notGit], 1, notGit],
  ['plan pause', ['plan', 'pause', 'apps/demo', '--git', notGit, '--direct'], 2, 'pass one or the other'],
  ['plan resume', ['plan', 'resume', 'apps/demo', '--git', notGit], 1, notGit],
  ['plan stop', ['plan', 'stop', 'apps/demo', '--git', notGit], 1, notGit],
  ['plan retry', ['plan', 'retry', 'apps/demo', '--git', notGit, '--kubeconfig', deadKubeconfig], 2, 'pass one or the other'],
  ['plan restart', ['plan', 'restart', 'apps/demo', '--git', notGit], 1, notGit],
  ['plan continue', ['plan', 'continue', 'apps/demo', '--git', notGit], 1, notGit],
  ['plan force-complete', ['plan', 'force-complete', 'apps/demo', '--phase', 'p', '--step', 's', '--reason', 'r', '--git', notGit], 1, notGit],
  ['plan force-complete', ['plan', 'force-complete', 'apps/demo', '--phase', 'p', '--step', 's'], 2, 'needs --reason'],
  ['pod restart', ['pod', 'restart', 'apps/demo', 'demo-0', '--git', notGit], 1, notGit],
  ['pod restart', ['pod', 'restart', 'apps/demo', 'demo-0', '--git', notGit, '--kubeconfig', deadKubeconfig], 2, 'pass one or the other'],
  ['pod replace', ['pod', 'replace', 'apps/demo', 'demo-0', '--git', notGit], 1, notGit],
  ['pod restart', ['pod', 'restart', 'demo', 'demo-0'], 2, 'expected <namespace>/<name>'],
  ['pod replace', ['pod', 'replace', 'apps/demo', 'demo-0', '--kubeconfig', deadKubeconfig], 1, 'baton cluster start'],
  ['pod replace', ['pod', 'replace', 'apps/demo', 'demo-0', '--timeout', 'soon'], 2, 'expected a duration'],
  ['history', ['history', '--git', notGit], 1, notGit],
  ['history', ['history', '--limit', '0'], 2, '--limit expects a whole number'],
  ['agent', ['agent', '--once', '--git', notGit, '--data-dir', join(scratch, 'agent-data')], 1, `${notGit} is not a Git repository`],
  ['agent', ['agent', '--once'], 2, 'no repository: pass --git'],
  ['agent', ['agent', '--git', notGit, '--interval', 'soon'], 2, 'expected a duration'],
  ['cluster start', ['cluster', 'start', '--token', 't'], 2, '--token needs --tls'],
  ['cluster start', ['cluster', 'start', '--port', 'x'], 2, 'expected a non-negative integer'],
  ['cluster node', ['cluster', 'node', 'explode', 'sim-node-1'], 2, 'action must be'],
  ['cluster node', ['cluster', 'node', 'fail', 'sim-node-1', '--kubeconfig', deadKubeconfig], 1, 'http://127.0.0.1:1'],
  ['test', ['test', 'no/such/path'], 1, 'no/such/path is not a repository'],
  ['test', ['test', '--assert-timeout', 'x'], 2, 'expected a number of seconds'],
  ['rbac', ['rbac', '--repo', BASIC], 0, ''],
  ['rbac', ['rbac', '--repo', 'no/such/folder'], 1, 'no such folder'],
  ['rbac', ['rbac', '--service-account', 'nons'], 2, 'expected NAMESPACE/NAME'],
  ['demo', ['demo', 'extra'], 2, 'too many arguments'],
  ['import kudo', ['import', 'kudo', 'test/fixtures/import/kudo/zookeeper-0.3.0', '--repo', join(scratch, 'imported'), '--dry-run'], 0, ''],
  ['import kudo', ['import', 'kudo', 'no/such/operator'], 1, 'no such folder'],
  ['import kudo', ['import', 'kudo', 'x', '-o', 'xml'], 2, 'expected text, markdown or json'],
  ['import dcos', ['import', 'dcos', 'no/such/svc.yml'], 1, 'no such file'],
  ['import dcos', ['import', 'dcos'], 2, 'missing required argument'],
];

describe('exit codes: 0 success, 1 failure or refusal, 2 usage error only', () => {
  it.each(TABLE)('baton %s %j exits %i', async (_name, args, code, text) => {
    const result = await baton(args);
    expect(result.code, `${result.err}\n${result.out}`).toBe(code);
    expect(result.err).toContain(text);
  }, 60_000);

  it('covers every command with a failure (1) and a usage error (2)', async () => {
    for (const name of leafCommands(await buildProgram(captureIO())).map(commandName)) {
      expect(TABLE.some(([n, , c]) => n === name && c === 2), `${name}: usage row`).toBe(true);
      if (name !== 'demo' && name !== 'cluster start') expect(TABLE.some(([n, , c]) => n === name && c === 1), `${name}: failure row`).toBe(true);
    }
  });
});

const program = await buildProgram(captureIO());

describe('help text', () => {
  const all = [program, ...allCommands(program)];

  it.each(all.map((c) => [commandName(c) || 'baton', c] as const))('%s --help fits in 100 columns', (_name, cmd) => {
    const help = cmd.helpInformation();
    const long = help.split('\n').filter((line) => line.length > HELP_WIDTH);
    expect(long).toEqual([]);
  });

  it('shows each default once: a description never repeats a default commander already prints', () => {
    const twice: string[] = [];
    for (const cmd of all) {
      for (const opt of cmd.options) {
        if (opt.defaultValue !== undefined && opt.defaultValue !== false && /(?<!-)\bdefault\b/i.test(opt.description)) twice.push(`${commandName(cmd)} ${opt.flags}`);
      }
    }
    expect(twice).toEqual([]);
  });

  it('one flag name per meaning: --repo is a folder on disk, --git a Git repository', () => {
    for (const cmd of all) {
      for (const opt of cmd.options.filter((o) => !o.hidden)) {
        if (opt.long === '--repo') expect(opt.flags, commandName(cmd)).toBe('--repo <dir>');
        if (opt.long === '--git') expect(opt.flags, commandName(cmd)).toMatch(/^--git <(url\|path|path)>$/);
        expect(opt.long, commandName(cmd)).not.toBe('--into');
      }
    }
  });
});

describe('deprecated spellings still work, with a warning', () => {
  it('history --repo is --git', async () => {
    const result = await baton(['history', '--repo', notGit]);
    expect(result.err).toContain('warning: --repo is deprecated for `baton history`: use --git');
    expect(result.err).toContain(`${notGit} is not a Git repository`);
    expect(result.code).toBe(1);
  });

  it('plan pause --repo <url|path> (Git mode) is --git', async () => {
    const result = await baton(['plan', 'pause', 'apps/demo', '--repo', notGit]);
    expect(result.err).toContain('warning: --repo for the Git repository is deprecated for `baton plan pause`: use --git');
    expect(result.err).toContain(notGit);
    expect(result.code).toBe(1);
  });

  it('pod restart --repo <url|path> is --git', async () => {
    const result = await baton(['pod', 'restart', 'apps/demo', 'demo-0', '--repo', notGit]);
    expect(result.err).toContain('warning: --repo is deprecated for `baton pod restart`: use --git');
    expect(result.code).toBe(1);
  });

  it('import --into is --repo', async () => {
    const result = await baton(['import', 'kudo', 'test/fixtures/import/kudo/zookeeper-0.3.0', '--into', join(scratch, 'into'), '--dry-run']);
    expect(result.err).toContain('warning: --into is deprecated for `baton import kudo`: use --repo');
    expect(result.code).toBe(0);
  });
});

function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

function leafCommands(cmd: Command): Command[] {
  return allCommands(cmd).filter((c) => c.commands.length === 0);
}

function commandName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
