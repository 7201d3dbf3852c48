/**
 * The CI definitions shipped in repo-template/ parse, and the Baton commands they run succeed on a
 * repository made from the template with a pull-request-like change on top. (Posting the comment needs
 * GitHub/GitLab and is not run here.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BATON_SHELL, ROOT } from '../helpers/cli.js';

let repo: string;

function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@e' },
  });
}

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-ci-'));
  cpSync(join(ROOT, 'repo-template'), repo, { recursive: true });
  cpSync(join(ROOT, 'frameworks'), join(repo, 'frameworks'), { recursive: true });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'template');
  const file = join(repo, 'instances/shop/cache.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/MAXMEMORY: \S+/, 'MAXMEMORY: 100mb'));
  git('commit', '-qam', 'more memory');
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

/** Runs shell lines the way the CI runner would, with BATON pointing at this checkout's CLI. */
function runShell(script: string, env: Record<string, string>): { status: number; output: string } {
  const res = spawnSync('bash', ['-e', '-c', script], { cwd: repo, encoding: 'utf8', env: { ...process.env, BATON: BATON_SHELL, BASE: 'HEAD~1', HEAD: 'HEAD', ...env }, timeout: 120_000 });
  return { status: res.status ?? -1, output: `${res.stdout}${res.stderr}` };
}

describe('the CI definitions in repo-template', () => {
  it('GitHub Actions: the workflow parses and its validate and preview steps succeed', () => {
    const workflow = parse(readFileSync(join(ROOT, 'repo-template/.github/workflows/baton.yaml'), 'utf8')) as {
      on: { pull_request: unknown };
      jobs: { preview: { steps: { name?: string; run?: string }[] } };
    };
    expect(workflow.on.pull_request).toBeDefined();
    const steps = workflow.jobs.preview.steps.filter((s) => s.run?.includes('$BATON'));
    expect(steps.map((s) => s.name)).toEqual(['Validate', 'Preview']);
    const githubOutput = join(repo, 'github-output');
    for (const step of steps) {
      const res = runShell(step.run ?? '', { GITHUB_OUTPUT: githubOutput });
      expect(res.status, res.output).toBe(0);
    }
    expect(readFileSync(githubOutput, 'utf8')).toContain('exit=0');
    const md = readFileSync(join(repo, 'baton-preview.md'), 'utf8');
    expect(md).toContain('| `shop/cache` | runs `update` | values changed: MAXMEMORY |');
  }, 180_000);

  it('GitLab CI: the job parses and its validate and preview lines succeed', () => {
    const pipeline = parse(readFileSync(join(ROOT, 'repo-template/.gitlab-ci.yml'), 'utf8')) as {
      'baton-preview': { script: string[]; variables: Record<string, string> };
    };
    const job = pipeline['baton-preview'];
    expect(job.variables.GIT_DEPTH).toBe('0');
    const lines = job.script.filter((l) => /\$BATON(?!_)/.test(l));
    expect(lines).toHaveLength(2);
    const res = runShell(`${lines.join('\n')}\necho "status=$status"`, {});
    expect(res.status, res.output).toBe(0);
    expect(res.output).toContain('status=0');
    expect(readFileSync(join(repo, 'baton-preview.md'), 'utf8')).toContain('runs `update`');
  }, 180_000);
});
