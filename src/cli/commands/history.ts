/** `baton history [instance] [--since]`: the operations history, read from git log trailers. */
import type { Command } from 'commander';
import { readHistory } from '../../sync/history.js';
import { authFromEnv, openRepository } from '../../sync/repo-access.js';
import type { CliIO } from '../io.js';
import { deprecatedAlias } from '../conventions.js';

interface HistoryFlags {
  git: string;
  branch: string;
  since?: string;
  limit?: string;
  output: string;
}

export function registerHistory(program: Command, io: CliIO): void {
  const history = program
    .command('history')
    .description('Operations history from git log: every plan transition the agent committed')
    .argument('[instance]', '<namespace>/<name>, or a name in any namespace')
    .option('--git <url|path>', 'Git repository holding the status commits: URL or path', '.')
    .option('--branch <name>', 'branch holding the status commits (the agent --status-branch if it uses one)', 'main')
    .option('--since <when>', 'only newer entries: 30m, 2h, 7d, or a date')
    .option('--limit <n>', 'at most this many entries')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (instance: string | undefined, flags: HistoryFlags) => {
      if (flags.output !== 'text' && flags.output !== 'json') {
        io.stderr(`error: --output expects text or json, got ${JSON.stringify(flags.output)}\n`);
        io.exitCode = 2;
        return;
      }
      const limit = flags.limit === undefined ? undefined : Number(flags.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
        io.stderr(`error: --limit expects a whole number of at least 1, got ${JSON.stringify(flags.limit)}\n`);
        io.exitCode = 2;
        return;
      }
      const repo = await openRepository({ repo: flags.git, branch: flags.branch, cwd: io.cwd, auth: authFromEnv() });
      if (repo.commit === undefined) {
        io.stderr(`error: branch ${flags.branch} does not exist in ${flags.git}\n`);
        io.exitCode = 1;
        return;
      }
      const entries = await readHistory(repo.mirror, { ref: repo.ref, ...(instance !== undefined ? { instance } : {}), ...(flags.since !== undefined ? { since: flags.since } : {}), ...(limit !== undefined ? { limit } : {}) });
      if (flags.output === 'json') {
        io.stdout(`${JSON.stringify(entries, null, 2)}\n`);
        return;
      }
      if (entries.length === 0) io.stdout('no operations recorded\n');
      for (const e of entries) {
        // Sync and health apart from the plan's own result: `[sync Failed, health Degraded]`.
        const live = [e.sync ? `sync ${e.sync}` : '', e.health ? `health ${e.health}` : ''].filter(Boolean).join(', ');
        io.stdout(`${e.date}  ${e.commit.slice(0, 10)}  ${e.summary}${live ? `  [${live}]` : ''}${e.sourceCommit ? `  (source ${e.sourceCommit.slice(0, 10)})` : ''}\n`);
      }
    });
  deprecatedAlias(history, io, { flags: '--repo <url|path>', attribute: 'repo' }, { flag: '--git', attribute: 'git' });
}
