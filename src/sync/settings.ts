/**
 * The agent's settings, from (highest first) command-line flags, BATON_* environment variables,
 * the repository's baton.yaml `agent:` section, and defaults. Bad values are errors naming where
 * they came from and what was expected.
 */
import { existsSync } from 'node:fs';
import { BatonError } from '../errors.js';
import type { RemoteAuth } from '../git/remote.js';
import type { Identity } from '../git/write.js';
import type { RepositoryDecl } from '../render/index.js';
import { parseDuration } from '../render/index.js';
import { authFromEnv, cacheRoot, mirrorDirFor } from './repo-access.js';
import { normaliseRemote } from '../git/remote.js';

export interface AgentFlags {
  repo?: string;
  branch?: string;
  statusBranch?: string;
  kubeconfig?: string;
  context?: string;
  interval?: string;
  once?: boolean;
  dataDir?: string;
  concurrency?: string;
  listen?: string;
  /** true/false from --leader-election / --no-leader-election; undefined: on unless --once. */
  leaderElection?: boolean;
  leaseNamespace?: string;
  shardSet?: string;
  leaseDuration?: string;
  renewDeadline?: string;
  leaseRetry?: string;
  verifySignatures?: string;
  signingKey?: string;
  /** false from --no-events. */
  events?: boolean;
  ageKeyFile?: string;
  ageKeySecret?: string;
}

export interface AgentSettings {
  repo: string;
  branch: string;
  statusBranch?: string;
  kubeconfig?: string;
  context?: string;
  intervalMs: number;
  once: boolean;
  /** The persistent bare clone (keeps unpushed status commits across restarts). */
  dataDir: string;
  concurrency: number;
  auth: RemoteAuth;
  author: Identity;
  /** host:port for /healthz, /readyz, /metrics and /webhook; undefined: no server. */
  listen?: string;
  webhookSecret?: string;
  /** One active agent per repository and branch, elected on a Lease (see leader.ts). */
  leaderElection: boolean;
  leaseNamespace?: string;
  /** Shards (src/shards/): this replica shares the repository with the other members of this set; no leader election. */
  shardSet?: string;
  /** Lease timing (client-go's): duration > renew deadline > retry period. */
  lease: LeaseTiming;
  /** SSH allowed-signers file: only commits signed by these keys are applied (see git/verify.ts). */
  verifySignatures?: string;
  /** SSH private key (no passphrase) that signs status commits. */
  signingKey?: string;
  /** Record Kubernetes Events for plans (see plans/kube-events.ts). */
  events: boolean;
  /** Age keys for SOPS-encrypted values: a key file ($SOPS_AGE_KEY_FILE and $SOPS_AGE_KEY are read as well). */
  ageKeyFile?: string;
  /** `namespace/name` of a Secret holding age keys. */
  ageKeySecret?: string;
}

export class SettingsError extends BatonError {
  constructor(source: string, field: string, expected: string, got: string) {
    super('AGENT_SETTING_INVALID', `${source} ${field}: expected ${expected}, got ${JSON.stringify(got)}`, { source, field });
  }
}

export const DEFAULT_INTERVAL_MS = 60_000;

export interface LeaseTiming {
  durationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export const DEFAULT_LEASE: LeaseTiming = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** Flags and environment only: enough to find and fetch the repository. */
export function resolveSettings(flags: AgentFlags, env: NodeJS.ProcessEnv, cwd: string): AgentSettings {
  const pick = (flag: string | undefined, envKey: string): { value: string; source: string } | undefined =>
    flag !== undefined ? { value: flag, source: 'flag' } : env[envKey] !== undefined && env[envKey] !== '' ? { value: env[envKey], source: `$${envKey}` } : undefined;
  const repo = pick(flags.repo, 'BATON_REPO');
  if (repo === undefined) throw new BatonError('AGENT_REPO_MISSING', 'no repository: pass --git URL|PATH or set BATON_REPO');
  const url = normaliseRemote(repo.value, cwd);
  const interval = pick(flags.interval, 'BATON_INTERVAL');
  const concurrency = pick(flags.concurrency, 'BATON_CONCURRENCY');
  const statusBranch = pick(flags.statusBranch, 'BATON_STATUS_BRANCH');
  const kubeconfig = pick(flags.kubeconfig, 'BATON_KUBECONFIG');
  const context = pick(flags.context, 'BATON_CONTEXT');
  const listen = pick(flags.listen, 'BATON_LISTEN');
  const dataDir = pick(flags.dataDir, 'BATON_DATA_DIR');
  const leaseNamespace = pick(flags.leaseNamespace, 'BATON_LEASE_NAMESPACE');
  const shardSet = shardSetting(flags, pick);
  const lease = leaseTiming(pick(flags.leaseDuration, 'BATON_LEASE_DURATION'), pick(flags.renewDeadline, 'BATON_RENEW_DEADLINE'), pick(flags.leaseRetry, 'BATON_LEASE_RETRY'));
  checkShardLeaseTiming(shardSet, lease, [pick(flags.renewDeadline, 'BATON_RENEW_DEADLINE'), pick(flags.leaseDuration, 'BATON_LEASE_DURATION')]);
  const verify = pick(flags.verifySignatures, 'BATON_VERIFY_SIGNATURES');
  if (verify && !existsSync(verify.value)) throw new SettingsError(verify.source, '--verify-signatures', 'an SSH allowed-signers file', verify.value);
  const signingKey = pick(flags.signingKey, 'BATON_SIGNING_KEY');
  if (signingKey && !existsSync(signingKey.value)) throw new SettingsError(signingKey.source, '--signing-key', 'an SSH private key file', signingKey.value);
  const settings: AgentSettings = {
    repo: url,
    branch: pick(flags.branch, 'BATON_BRANCH')?.value ?? 'main',
    intervalMs: interval ? durationMs(interval.value, interval.source, '--interval') : DEFAULT_INTERVAL_MS,
    once: flags.once === true,
    dataDir: dataDir?.value ?? mirrorDirFor(url, cacheRoot(env)),
    concurrency: concurrency ? positiveInt(concurrency.value, concurrency.source, '--concurrency') : 0,
    auth: authFromEnv(env),
    author: { name: env.BATON_AUTHOR_NAME ?? '', email: env.BATON_AUTHOR_EMAIL ?? '' },
    ...(statusBranch ? { statusBranch: statusBranch.value } : {}),
    ...(kubeconfig ? { kubeconfig: kubeconfig.value } : {}),
    ...(context ? { context: context.value } : {}),
    ...(listen ? { listen: listen.value } : {}),
    ...(env.BATON_WEBHOOK_SECRET ? { webhookSecret: env.BATON_WEBHOOK_SECRET } : {}),
    // A shard member is fenced by its own member lease instead of a leader lease.
    leaderElection: shardSet === undefined && (flags.leaderElection ?? flags.once !== true),
    ...(shardSet ? { shardSet: shardSet.value } : {}),
    lease,
    events: eventsSetting(flags, env),
    ...(leaseNamespace ? { leaseNamespace: leaseNamespace.value } : {}),
    ...(verify ? { verifySignatures: verify.value } : {}),
    ...(signingKey ? { signingKey: signingKey.value } : {}),
    ...ageKeySettings(flags, pick),
  };
  return settings;
}

type Picked = { value: string; source: string } | undefined;
type PickSetting = (flag: string | undefined, envKey: string) => Picked;

/** --shard-set / $BATON_SHARD_SET: a DNS label; not with --once. */
function shardSetting(flags: AgentFlags, pick: PickSetting): Picked {
  const shardSet = pick(flags.shardSet, 'BATON_SHARD_SET');
  if (shardSet && !/^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/.test(shardSet.value)) throw new SettingsError(shardSet.source, '--shard-set', 'a lowercase DNS label of at most 40 characters (letters, digits, -)', shardSet.value);
  if (shardSet && flags.once === true) throw new SettingsError(shardSet.source, '--shard-set', 'no --once (a one-shot pass acts on every instance; shard members run the poll loop)', shardSet.value);
  return shardSet;
}

/** Where SOPS age keys come from: a key file (--age-key-file, $SOPS_AGE_KEY_FILE) and a Secret (--age-key-secret, $BATON_AGE_KEY_SECRET). */
function ageKeySettings(flags: AgentFlags, pick: PickSetting): Pick<AgentSettings, 'ageKeyFile' | 'ageKeySecret'> {
  const file = pick(flags.ageKeyFile, 'SOPS_AGE_KEY_FILE');
  if (file && !existsSync(file.value)) throw new SettingsError(file.source, '--age-key-file', 'an age key file', file.value);
  const secret = pick(flags.ageKeySecret, 'BATON_AGE_KEY_SECRET');
  if (secret && !/^[a-z0-9-]+\/[a-z0-9.-]+$/.test(secret.value)) throw new SettingsError(secret.source, '--age-key-secret', 'NAMESPACE/NAME of a Secret', secret.value);
  return { ...(file ? { ageKeyFile: file.value } : {}), ...(secret ? { ageKeySecret: secret.value } : {}) };
}

/** Lease timing from flags or environment, defaults otherwise; the three must keep client-go's order. */
function leaseTiming(duration: Picked, deadline: Picked, retry: Picked): LeaseTiming {
  const out: LeaseTiming = {
    durationMs: duration ? durationMs(duration.value, duration.source, '--lease-duration') : DEFAULT_LEASE.durationMs,
    renewDeadlineMs: deadline ? durationMs(deadline.value, deadline.source, '--renew-deadline') : DEFAULT_LEASE.renewDeadlineMs,
    retryPeriodMs: retry ? durationMs(retry.value, retry.source, '--lease-retry') : DEFAULT_LEASE.retryPeriodMs,
  };
  if (out.durationMs < 1000) throw new SettingsError(duration?.source ?? 'default', '--lease-duration', 'at least 1s', duration?.value ?? '');
  if (!(out.renewDeadlineMs < out.durationMs)) {
    throw new SettingsError(deadline?.source ?? duration?.source ?? 'default', '--renew-deadline', `a duration shorter than the lease duration (${out.durationMs} ms)`, deadline?.value ?? `${out.renewDeadlineMs}ms`);
  }
  if (!(out.retryPeriodMs < out.renewDeadlineMs)) {
    throw new SettingsError(retry?.source ?? deadline?.source ?? 'default', '--lease-retry', `a duration shorter than the renew deadline (${out.renewDeadlineMs} ms)`, retry?.value ?? `${out.retryPeriodMs}ms`);
  }
  return out;
}

/** A shard member counts another gone one retry period before its lease duration (docs/scale-out.md, Takeover). */
function checkShardLeaseTiming(shardSet: { source: string } | undefined, lease: LeaseTiming, flags: ({ source: string } | undefined)[]): void {
  if (shardSet === undefined || lease.renewDeadlineMs + lease.retryPeriodMs < lease.durationMs) return;
  const blame = flags.find((f) => f !== undefined) ?? shardSet;
  throw new SettingsError(blame.source, '--renew-deadline', `with --shard-set, renew deadline + retry period shorter than the lease duration (${lease.renewDeadlineMs} + ${lease.retryPeriodMs} ms, lease ${lease.durationMs} ms)`, `${lease.renewDeadlineMs}ms`);
}

/** --no-events wins; otherwise $BATON_EVENTS (true or false); on by default. */
function eventsSetting(flags: AgentFlags, env: NodeJS.ProcessEnv): boolean {
  const value = env.BATON_EVENTS;
  if (value !== undefined && value !== '' && value !== 'true' && value !== 'false') throw new SettingsError('$BATON_EVENTS', 'value', 'true or false', value);
  return flags.events !== false && value !== 'false';
}

/** Fills what flags and environment left open from baton.yaml, then defaults. */
export function withRepositorySettings(settings: AgentSettings, decl: RepositoryDecl | undefined, explicit: { interval: boolean; statusBranch: boolean }): AgentSettings {
  const agent = decl?.agent;
  const out = { ...settings };
  if (!explicit.interval && agent?.interval !== undefined) out.intervalMs = durationMs(agent.interval, 'baton.yaml', 'agent.interval');
  if (!explicit.statusBranch && agent?.statusBranch !== undefined) out.statusBranch = agent.statusBranch;
  if (out.concurrency === 0) out.concurrency = agent?.concurrency ?? 4;
  out.author = { name: out.author.name || agent?.author?.name || 'Baton', email: out.author.email || agent?.author?.email || 'baton@localhost' };
  return out;
}

export function durationMs(text: string, source: string, field: string): number {
  const seconds = /^\d+ms$/.test(text) ? Number(text.slice(0, -2)) / 1000 : parseDuration(text);
  if (seconds === undefined || !(seconds > 0)) throw new SettingsError(source, field, 'a duration such as 30s, 5m or 1h', text);
  return seconds * 1000;
}

function positiveInt(text: string, source: string, field: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new SettingsError(source, field, 'a whole number of at least 1', text);
  return n;
}
