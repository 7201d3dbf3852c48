/**
 * How a request command reaches its instance (docs/operations.md): by default a commit in the Git
 * repository of `--git <url|path>` that the agent carries out; with `--direct`, `--kubeconfig` or
 * `--context`, at once against the cluster. Shared by `baton plan pause|resume|...` and `baton pod`, so
 * both read the same flags the same way.
 */
import type { Command } from 'commander';
import { commandPath, UsageError } from './conventions.js';
import type { CliIO } from './io.js';

export interface RequestModeFlags {
  direct?: boolean;
  kubeconfig?: string;
  context?: string;
  git: string;
}

/**
 * `direct` or `git`; naming a Git repository (`--git`) together with a cluster flag is a usage error.
 * `--repo <url|path>` in Git mode is the old spelling of `--git` (warned); in direct mode `--repo <dir>`
 * is the repository folder holding the instance file, as for `baton apply`.
 */
export function requestMode(cmd: Command, io: CliIO, flags: RequestModeFlags & { repo?: string }): { mode: 'direct' } | { mode: 'git'; git: string } {
  const direct = flags.direct === true || flags.kubeconfig !== undefined || flags.context !== undefined;
  const gitGiven = cmd.getOptionValueSource('git') === 'cli';
  if (direct && gitGiven) throw new UsageError('--git commits a request for the agent; --direct, --kubeconfig and --context act on the cluster: pass one or the other');
  if (direct) return { mode: 'direct' };
  if (flags.repo !== undefined && !gitGiven) {
    io.stderr(`warning: --repo for the Git repository is deprecated for \`baton ${commandPath(cmd)}\`: use --git (--repo <dir> is the repository folder of --direct)\n`);
    return { mode: 'git', git: flags.repo };
  }
  return { mode: 'git', git: flags.git };
}

