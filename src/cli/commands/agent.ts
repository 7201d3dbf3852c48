/** `baton agent`: the GitOps sync loop (or one pass with --once). Flags parse into settings; src/sync runs it. */
import type { Command } from 'commander';
import { runAgent } from '../../sync/run.js';
import { SettingsError, resolveSettings, type AgentFlags } from '../../sync/settings.js';
import { BatonError } from '../../errors.js';
import { UsageError, deprecatedAlias } from '../conventions.js';
import type { AgentLog } from '../../sync/agent.js';
import type { CliIO } from '../io.js';

export function registerAgent(program: Command, io: CliIO): void {
  const agent = program
    .command('agent')
    .description('The GitOps sync loop: poll a repository, run the plans its changes call for, commit status back')
    .option('--git <url|path>', 'Git repository to watch: https URL, ssh URL or local path ($BATON_REPO)')
    .option('--branch <name>', 'branch to watch ($BATON_BRANCH, default main)')
    .option('--status-branch <name>', 'commit status to this branch instead ($BATON_STATUS_BRANCH or baton.yaml agent.statusBranch)')
    .option('--kubeconfig <file>', 'kubeconfig ($BATON_KUBECONFIG, $KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context ($BATON_CONTEXT)')
    .option('--interval <duration>', 'poll interval, e.g. 30s ($BATON_INTERVAL or baton.yaml agent.interval, default 60s)')
    .option('--once', 'one pass: fetch, run every plan the commit calls for to its end, push status, exit (1 if a plan failed or a change was refused)')
    .option('--data-dir <dir>', "the agent's persistent bare clone ($BATON_DATA_DIR, default ~/.cache/baton/repos/<hash>)")
    .option('--concurrency <n>', 'instances whose plans run at once ($BATON_CONCURRENCY or baton.yaml agent.concurrency, default 4)')
    .option('--listen <host:port>', 'serve /healthz, /readyz, /metrics and /webhook ($BATON_LISTEN)')
    .option('--leader-election', 'one active agent per repository and branch, elected on a Lease (default, except with --once)')
    .option('--no-leader-election', 'run without leader election')
    .option('--shard-set <name>', 'share the repository with the other replicas of this shard set, each acting on its share of the instances ($BATON_SHARD_SET; replaces leader election, docs/scale-out.md)')
    .option('--lease-namespace <namespace>', 'namespace of the leader Lease ($BATON_LEASE_NAMESPACE, default baton-system)')
    .option('--lease-duration <duration>', 'how long a Lease not renewed stays held ($BATON_LEASE_DURATION, default 15s)')
    .option('--renew-deadline <duration>', 'a leader that could not renew for this long stops acting, shorter than the lease duration ($BATON_RENEW_DEADLINE, default 10s)')
    .option('--lease-retry <duration>', 'time between attempts to acquire or renew the Lease ($BATON_LEASE_RETRY, default 2s)')
    .option('--verify-signatures <allowed-signers-file>', 'apply only commits signed by a key in this SSH allowed-signers file ($BATON_VERIFY_SIGNATURES)')
    .option('--signing-key <ssh-private-key>', 'sign status commits with this SSH key, no passphrase ($BATON_SIGNING_KEY)')
    .option('--no-events', 'do not record Kubernetes Events for plans ($BATON_EVENTS=false)')
    .option('--age-key-file <file>', 'age keys for SOPS-encrypted values ($SOPS_AGE_KEY_FILE; $SOPS_AGE_KEY is read too)')
    .option('--age-key-secret <namespace/name>', 'a Secret whose *.agekey entries hold age keys ($BATON_AGE_KEY_SECRET)')
    .action(async (flags: AgentCliFlags) => {
      const settings = settingsOrUsageError(flags, io.cwd);
      const log: AgentLog = (level, message, fields = {}) => {
        io.stderr(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
      };
      const abort = new AbortController();
      const stop = (): void => abort.abort();
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      try {
        io.exitCode = await runAgent(
          settings,
          { interval: flags.interval !== undefined || process.env.BATON_INTERVAL !== undefined, statusBranch: settings.statusBranch !== undefined },
          { log, report: (line) => io.stdout(`${line}\n`) },
          abort.signal,
        );
      } finally {
        process.off('SIGTERM', stop);
        process.off('SIGINT', stop);
      }
    });
  deprecatedAlias(agent, io, { flags: '--repo <url|path>', attribute: 'repo' }, { flag: '--git', attribute: 'git' });
}

type AgentCliFlags = Omit<AgentFlags, 'repo'> & { git?: string };

/** A missing repository or a malformed flag value is a usage error (2); a bad $BATON_* or baton.yaml value is not. */
function settingsOrUsageError(flags: AgentCliFlags, cwd: string): ReturnType<typeof resolveSettings> {
  const { git, ...rest } = flags;
  try {
    return resolveSettings({ ...rest, ...(git !== undefined ? { repo: git } : {}) }, process.env, cwd);
  } catch (err) {
    if (err instanceof BatonError && (err.code === 'AGENT_REPO_MISSING' || (err instanceof SettingsError && err.context.source === 'flag'))) {
      throw new UsageError(err.message);
    }
    throw err;
  }
}
