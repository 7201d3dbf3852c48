/**
 * `baton preview --base REF --head REF [--git DIR] [-o markdown|json|text] [--kubeconfig F] [--context C]`:
 * what merging a change would do, for a pull-request comment. Exit 0 when the change is acceptable,
 * 1 when an instance would be refused or a file is invalid, 2 for usage errors (including unknown refs).
 */
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { BatonError, errorMessage } from '../../errors.js';
import { createKubeClient, type HttpKubeClient } from '../../kube/index.js';
import { Renderer } from '../../render/index.js';
import { formatMarkdown } from '../../preview/format-markdown.js';
import { formatText } from '../../preview/format-text.js';
import { treesAt } from '../../preview/git-trees.js';
import { buildPreview } from '../../preview/preview.js';
import type { CliIO } from '../io.js';
import { deprecatedAlias } from '../conventions.js';
import { AGE_KEY_FILE_HELP, cliAgeKeys } from '../age-keys.js';
import { postPreviewComment, type PreviewCommentTarget } from '../../notify/index.js';
import { readFileSync } from 'node:fs';
import { ClusterClient } from '../../clusters/connect.js';
import type { ClusterDecl } from '../../render/schemas.js';

/**
 * Where the comment goes, from the CI environment: GitHub Actions (GITHUB_TOKEN, GITHUB_REPOSITORY,
 * GITHUB_API_URL, the pull request from GITHUB_EVENT_PATH) or GitLab CI (BATON_NOTE_TOKEN, CI_PROJECT_ID,
 * CI_MERGE_REQUEST_IID, CI_SERVER_URL). Returns what is missing as text.
 */
export function commentTarget(provider: 'github' | 'gitlab', pr: string | undefined, env: NodeJS.ProcessEnv): PreviewCommentTarget | string {
  if (provider === 'github') {
    const token = env.GITHUB_TOKEN ?? env.GH_TOKEN;
    const repository = env.GITHUB_REPOSITORY;
    let number = pr !== undefined ? Number(pr) : undefined;
    if (number === undefined && env.GITHUB_EVENT_PATH) {
      try {
        const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as { pull_request?: { number?: number }; number?: number };
        number = event.pull_request?.number ?? event.number;
      } catch {
        return `cannot read $GITHUB_EVENT_PATH (${env.GITHUB_EVENT_PATH})`;
      }
    }
    if (!token) return 'set GITHUB_TOKEN';
    if (!repository) return 'set GITHUB_REPOSITORY (OWNER/REPO)';
    if (number === undefined || !Number.isInteger(number) || number < 1) return 'pass --pr NUMBER (or run on a pull_request event)';
    return { provider, repository, pullRequest: number, token, ...(env.GITHUB_API_URL ? { apiUrl: env.GITHUB_API_URL } : {}) };
  }
  const token = env.BATON_NOTE_TOKEN;
  const project = env.CI_PROJECT_ID;
  const number = Number(pr ?? env.CI_MERGE_REQUEST_IID);
  if (!token) return 'set BATON_NOTE_TOKEN (a token with api scope)';
  if (!project) return 'set CI_PROJECT_ID';
  if (!Number.isInteger(number) || number < 1) return 'pass --pr NUMBER (or run in a merge request pipeline)';
  return { provider, project, mergeRequest: number, token, ...(env.CI_SERVER_URL ? { url: env.CI_SERVER_URL } : {}) };
}

type PreviewFormat = 'markdown' | 'json' | 'text';

interface PreviewFlags {
  base: string;
  head: string;
  git: string;
  output: PreviewFormat;
  kubeconfig?: string;
  context?: string;
  ageKeyFile?: string;
  comment?: 'github' | 'gitlab';
  pr?: string;
}

function parseFormat(value: string): PreviewFormat {
  if (value !== 'markdown' && value !== 'json' && value !== 'text') throw new InvalidArgumentError('expected markdown, json or text');
  return value;
}

export function registerPreview(program: Command, io: CliIO): void {
  const preview = program
    .command('preview')
    .description('Show what merging a change would do: plans, rendered differences, prunes, schedules')
    .requiredOption('--base <ref>', 'the commit the change starts from (e.g. origin/main)')
    .requiredOption('--head <ref>', 'the commit of the change (e.g. HEAD)')
    .option('--git <path>', 'the Git repository: a checkout or a bare clone', '.')
    .option('-o, --output <format>', 'markdown (for a pull-request comment), json or text', parseFormat, 'markdown')
    .option('--kubeconfig <file>', 'also compare with the live cluster (server-side dry run)')
    .option('--context <name>', 'kubeconfig context (with --kubeconfig or KUBECONFIG)')
    .option('--age-key-file <file>', AGE_KEY_FILE_HELP)
    .option('--comment <provider>', 'also post the Markdown as the pull-request (github) or merge-request (gitlab) comment, edited in place on every run', (v: string) => {
      if (v !== 'github' && v !== 'gitlab') throw new InvalidArgumentError('expected github or gitlab');
      return v;
    })
    .option('--pr <number>', 'the pull/merge request number for --comment (default: from the CI environment)')
    .action(async (flags: PreviewFlags) => {
      io.exitCode = await runPreview(io, flags);
    });
  deprecatedAlias(preview, io, { flags: '--repo <dir>', attribute: 'repo' }, { flag: '--git', attribute: 'git' });
}

async function runPreview(io: CliIO, flags: PreviewFlags): Promise<number> {
  const repo = resolve(io.cwd, flags.git);
  let trees;
  try {
    trees = await treesAt(repo, flags.base, flags.head);
  } catch (err) {
    io.stderr(`error: ${errorMessage(err)}\n`);
    return 1;
  }
  const keys = await cliAgeKeys(io, flags.ageKeyFile);
  if (keys === undefined) return 1;
  let target: PreviewCommentTarget | undefined;
  if (flags.comment !== undefined) {
    const found = commentTarget(flags.comment, flags.pr, process.env);
    if (typeof found === 'string') {
      io.stderr(`error: --comment ${flags.comment}: ${found}\n`);
      return 2;
    }
    target = found;
  }
  const renderer = new Renderer();
  let client: HttpKubeClient | undefined;
  const kubeconfigPath = flags.kubeconfig !== undefined ? resolve(io.cwd, flags.kubeconfig) : undefined;
  // Live comparison of an instance on a baton.yaml cluster: connected as the agent would, with --kubeconfig as its own.
  const others = new Map<string, ClusterClient>();
  const liveCluster = (decl: ClusterDecl): ClusterClient => {
    const key = JSON.stringify(decl);
    let c = others.get(key);
    if (c === undefined && client !== undefined) others.set(key, (c = new ClusterClient(decl, { own: client, ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}), cwd: io.cwd })));
    if (c === undefined) throw new Error('no live cluster');
    return c;
  };
  try {
    if (flags.kubeconfig !== undefined || flags.context !== undefined) {
      client = await createKubeClient({
        ...(flags.kubeconfig !== undefined ? { kubeconfigPath: resolve(io.cwd, flags.kubeconfig) } : {}),
        ...(flags.context !== undefined ? { context: flags.context } : {}),
      });
    }
    const report = await buildPreview({
      base: trees.base,
      head: trees.head,
      baseRef: flags.base === trees.baseCommit ? flags.base : `${flags.base} (${trees.baseCommit.slice(0, 8)})`,
      headRef: flags.head === trees.headCommit ? flags.head : `${flags.head} (${trees.headCommit.slice(0, 8)})`,
      renderer,
      now: new Date(),
      ...(client ? { live: client, liveCluster } : {}),
      local: { ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}), ...(flags.context !== undefined ? { context: flags.context } : {}), cwd: io.cwd },
      values: { keys, lenient: true },
    });
    const text = flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : flags.output === 'text' ? formatText(report) : formatMarkdown(report);
    io.stdout(text);
    if (target !== undefined) {
      // A comment that cannot be posted is reported, but the preview's verdict is still the exit code.
      try {
        io.stderr(`preview comment ${await postPreviewComment(target, formatMarkdown(report))}\n`);
      } catch (err) {
        io.stderr(`warning: the preview comment was not posted: ${errorMessage(err)}\n`);
      }
    }
    return report.acceptable ? 0 : 1;
  } catch (err) {
    io.stderr(`error: ${errorMessage(err)}${err instanceof BatonError ? ` (${err.code})` : ''}\n`);
    return 1;
  } finally {
    for (const c of others.values()) c.close();
    client?.close();
    await renderer.close();
  }
}
