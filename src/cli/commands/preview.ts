/**
 * `baton preview --base REF --head REF [--repo DIR] [-o markdown|json|text] [--kubeconfig F] [--context C]`:
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
import { PreviewRefError, treesAt } from '../../preview/git-trees.js';
import { buildPreview } from '../../preview/preview.js';
import type { CliIO } from '../io.js';

type PreviewFormat = 'markdown' | 'json' | 'text';

interface PreviewFlags {
  base: string;
  head: string;
  repo?: string;
  output: PreviewFormat;
  kubeconfig?: string;
  context?: string;
}

function parseFormat(value: string): PreviewFormat {
  if (value !== 'markdown' && value !== 'json' && value !== 'text') throw new InvalidArgumentError('expected markdown, json or text');
  return value;
}

export function registerPreview(program: Command, io: CliIO): void {
  program
    .command('preview')
    .description('Show what merging a change would do: plans, rendered differences, prunes, schedules')
    .requiredOption('--base <ref>', 'the commit the change starts from (e.g. origin/main)')
    .requiredOption('--head <ref>', 'the commit of the change (e.g. HEAD)')
    .option('--repo <dir>', 'the Git repository, a checkout or a bare clone (default: current directory)')
    .option('-o, --output <format>', 'markdown (for a pull-request comment), json or text', parseFormat, 'markdown')
    .option('--kubeconfig <file>', 'also compare with the live cluster (server-side dry run)')
    .option('--context <name>', 'kubeconfig context (with --kubeconfig or KUBECONFIG)')
    .action(async (flags: PreviewFlags) => {
      io.exitCode = await runPreview(io, flags);
    });
}

async function runPreview(io: CliIO, flags: PreviewFlags): Promise<number> {
  const repo = resolve(io.cwd, flags.repo ?? '.');
  let trees;
  try {
    trees = await treesAt(repo, flags.base, flags.head);
  } catch (err) {
    io.stderr(`error: ${errorMessage(err)}\n`);
    return err instanceof PreviewRefError ? 2 : 1;
  }
  const renderer = new Renderer();
  let client: HttpKubeClient | undefined;
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
      ...(client ? { live: client } : {}),
    });
    const text = flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : flags.output === 'text' ? formatText(report) : formatMarkdown(report);
    io.stdout(text);
    return report.acceptable ? 0 : 1;
  } catch (err) {
    io.stderr(`error: ${errorMessage(err)}${err instanceof BatonError ? ` (${err.code})` : ''}\n`);
    return 1;
  } finally {
    client?.close();
    await renderer.close();
  }
}
