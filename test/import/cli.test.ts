/**
 * The `baton import` commands in-process: report formats, exit codes, --dry-run, usage errors, and a
 * refused import that leaves the repository untouched.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { DCOS_LEDGER, KUDO_QUORUM, KUDO_ZOOKEEPER } from './support.js';

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-import-cli-'));
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

async function baton(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io: CliIO & { out: string; err: string } = { out: '', err: '', isTTY: false, cwd: repo, exitCode: 0, stdout: (t) => void (io.out += t), stderr: (t) => void (io.err += t) };
  const code = await main(['node', 'baton', ...args], io);
  return { code, out: io.out, err: io.err };
}

describe('baton import', () => {
  it('refuses an operator whose KudoOperator dependency is not in the repository yet, naming it (exit 1)', async () => {
    const r = await baton('import', 'kudo', KUDO_QUORUM);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/frameworks\/quorum\/0\.1\.0\/framework\.yaml:\d+:\d+: error VALIDATE_CHILD_FRAMEWORK_UNKNOWN: baton validate: Instance task coordination: framework "zookeeper" does not exist under frameworks\//);
    expect(existsSync(join(repo, 'frameworks/quorum'))).toBe(false);
  }, 60_000);

  it('prints the report as JSON and writes the version (exit 0)', async () => {
    const dependency = await baton('import', 'kudo', KUDO_ZOOKEEPER);
    expect(dependency.code, dependency.out + dependency.err).toBe(0);
    const r = await baton('import', 'kudo', KUDO_QUORUM, '-o', 'json');
    expect(r.code, r.out + r.err).toBe(0);
    const report = JSON.parse(r.out) as { ok: boolean; written: string; framework: { name: string }; findings: { level: string; code: string; at: { file: string; line: number } }[] };
    expect(report).toMatchObject({ ok: true, written: 'frameworks/quorum/0.1.0', framework: { name: 'quorum' } });
    expect(report.findings).toContainEqual(expect.objectContaining({ level: 'mapped', code: 'IMPORT_TASK_PIPE', at: { file: 'operator.yaml', line: 37, column: 5 } }));
    expect(readdirSync(join(repo, 'frameworks/quorum/0.1.0')).sort()).toEqual(['IMPORT.md', 'framework.yaml', 'params.yaml', 'templates']);
    expect(report.findings).toContainEqual(expect.objectContaining({ level: 'mapped', code: 'IMPORT_TASK_KUDO_OPERATOR', at: { file: 'operator.yaml', line: 45, column: 5 } }));
  }, 60_000);

  it('prints Markdown with --dry-run and writes nothing (exit 0)', async () => {
    const r = await baton('import', 'dcos', join(DCOS_LEDGER, 'service/svc.yml'), '--package', join(DCOS_LEDGER, 'package'), '--dry-run', '-o', 'markdown');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain('# Import report: ledger 2.1.0');
    expect(r.out).toContain('## Not translated');
    expect(r.out).toContain('Not written: dry run (--dry-run).');
    expect(existsSync(join(repo, 'frameworks'))).toBe(false);
  }, 60_000);

  it('refuses a failed import, located, and writes nothing (exit 1)', async () => {
    const bad = join(repo, 'bad-operator');
    cpSync(KUDO_QUORUM, bad, { recursive: true });
    writeFileSync(join(bad, 'templates/pdb.yaml'), 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: {{ .Name | shout }}\n');
    const r = await baton('import', 'kudo', bad);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/templates\/pdb\.yaml:4:20: error IMPORT_TEMPLATE_UNKNOWN_FUNCTION: function "shout" is not defined/);
    expect(r.out).toContain('not written: the import has errors');
    expect(existsSync(join(repo, 'frameworks'))).toBe(false);
  }, 60_000);

  it.each([
    [['import', 'kudo', 'no-such-folder'], 1, /no-such-folder: no such folder/],
    [['import', 'dcos', 'no-such.yml'], 1, /no-such\.yml: no such file or folder/],
    [['import', 'kudo', '.', '-o', 'xml'], 2, /expected text, markdown or json/],
  ])('%j exits %i (a missing input is a failure, a malformed flag a usage error)', async (args, code, message) => {
    const r = await baton(...args);
    expect(r.code).toBe(code);
    expect(r.err).toMatch(message);
  });

  it('needs --package for --options', async () => {
    const r = await baton('import', 'dcos', join(DCOS_LEDGER, 'service/svc.yml'), '--options', join(DCOS_LEDGER, 'options.json'), '--dry-run');
    expect(r.code).toBe(1);
    expect(r.out).toContain('IMPORT_DCOS_OPTIONS');
  }, 60_000);
});
