/**
 * `baton agent` as a library call: resolves settings, opens the bare clone, connects to the cluster
 * and runs one pass (`once`) or the poll loop until the signal aborts, then shuts down gracefully
 * (running steps finish, pending status is pushed).
 */
import { createKubeClient } from '../kube/http-client.js';
import { ConfigMapCheckpointStore } from '../plans/checkpoint-configmap.js';
import { defaultHooks } from '../plans/defaults.js';
import { KubeEventRecorder } from '../plans/kube-events.js';
import { loadSettings, Renderer } from '../render/index.js';
import { GitMirror } from '../git/mirror.js';
import { VerifyingMirror, sshSigner } from '../git/verify.js';
import { DEFAULT_LEASE_NAMESPACE, defaultIdentity, leaseNameFor, runAsLeader } from './leader.js';
import { ObjectStore } from '../git/tree.js';
import { errorMessage } from '../errors.js';
import { Agent, type AgentLog, type AgentOptions, type CommitRefusal, type PassReport } from './agent.js';
import { withRepositorySettings, type AgentSettings } from './settings.js';
import { AgentServer } from './server.js';
import { AgentMetrics } from './metrics.js';
import { DriftKeeper } from '../drift/index.js';
import { teamSetup, type TeamSetup } from './team.js';
import { LeaseFence, fencedClient, fencedClients, type Fence } from '../fencing/index.js';
import type { KubeClient } from '../kube/client.js';
import { ClusterIdentityRecord, ClusterRouter, identityRecordName } from '../clusters/index.js';
import type { KubeEventRecorderOptions } from '../plans/kube-events.js';
import type { RepositoryDecl } from '../render/index.js';
import { tenantOf } from '../tenancy/rules.js';
import type { ShardMember } from '../shards/index.js';
import { runAsShardMember, shardMemberFor, termlessFence } from '../shards/run-member.js';
import { ThreadedLeaderElector, type LeaseClientOptions } from '../shards/lease-renewer/index.js';

export interface RunAgentIO {
  log: AgentLog;
  /** One line per instance outcome of a `--once` pass. */
  report: (line: string) => void;
}

export interface Explicit { interval: boolean; statusBranch: boolean }

export async function runAgent(base: AgentSettings, explicit: Explicit, io: RunAgentIO, signal?: AbortSignal): Promise<number> {
  const mirrorOptions = { dir: base.dataDir, remote: { url: base.repo, auth: base.auth } };
  // With --verify-signatures the agent only ever sees commits signed by a trusted key (git/verify.ts).
  const mirror = base.verifySignatures === undefined ? new GitMirror(mirrorOptions) : new VerifyingMirror({
    ...mirrorOptions, branch: base.branch, trust: { allowedSigners: base.verifySignatures },
    onRefused: (commit, v) => io.log('error', `refusing commit ${commit.slice(0, 12)}: ${v.message}`, { commit, reason: v.reason }),
  });
  await mirror.init();
  const tip = await mirror.fetch(base.branch);
  let decl;
  if (tip !== undefined) {
    const loaded = await loadSettings(await new ObjectStore(mirror.dir).at(tip));
    if (loaded.ok) decl = loaded.value.decl;
    else io.log('warn', `baton.yaml is invalid, using defaults: ${loaded.problems.map((p) => p.message).join('; ')}`);
  }
  const settings = withRepositorySettings(base, decl, explicit);
  // apart: client-node resolves the kubeconfig in a child process and never loads into the long-running agent (its memory).
  const clientOptions = { ...(settings.kubeconfig ? { kubeconfigPath: settings.kubeconfig } : {}), ...(settings.context ? { context: settings.context } : {}), apart: true };
  const client = await createKubeClient(clientOptions);
  const team = await teamSetup(settings, decl, client, clientOptions, io.log);
  const renderer = new Renderer();
  const metrics = new AgentMetrics();
  const { member, fence, agentFence, ownership, elector } = fencing(settings, client, clientOptions, io.log);
  const acting = fence ? fencedClient(client, fence) : client;
  // Many clusters (docs/clusters.md): each instance's client, checkpoint and Events in its target cluster.
  const clusters = clusterRouter(settings, decl, { client, acting, fence, team, log: io.log });
  const { checkpoints, events: kubeEvents } = clusters;
  const hooks = defaultHooks();
  // Drift detection and self-heal (docs/drift.md): settings per instance from baton.yaml and instance files.
  const drift = new DriftKeeper({ client: acting, hooks, store: checkpoints, onSweep: (r, seconds) => metrics.sweep(seconds, r.stats.requests, r.stats.objects) });
  const agent = new Agent({
    mirror, branch: settings.branch, client: acting, checkpoints, hooks, renderer, drift,
    author: settings.author, concurrency: settings.concurrency, log: io.log,
    ...(settings.statusBranch ? { statusBranch: settings.statusBranch } : {}),
    onPushRetry: () => metrics.pushRetries.inc(),
    ...(settings.signingKey ? { sign: sshSigner(settings.signingKey) } : {}),
    onOutcome: (o) => metrics.plans.inc({ result: o.kind }),
    onEngineEvent: (e) => metrics.observe(e),
    ...(mirror instanceof VerifyingMirror ? { commitRefusal: () => refusalOf(mirror) } : {}),
    ...(kubeEvents ? { kubeEvents } : {}),
    ...team.agentOptions,
    ...(fence ? { fence: agentFence ?? fence } : {}),
    ...routedOptions(clusters, team),
    ...ownership,
  });
  const wake = new Wake();
  // A push event makes the agent poll at once and check every instance for drift (on demand).
  const onPush = (): void => { agent.checkDrift(); wake.now(); };
  const server = settings.listen ? new AgentServer({ metrics, ...(settings.webhookSecret ? { webhookSecret: settings.webhookSecret } : {}), onPush, log: io.log, beforeScrape: () => metrics.instances(agent.instanceStatuses()) }) : undefined;
  let stopped: Promise<void> | undefined;
  const stopAgent = (): Promise<void> => (stopped ??= agent.stop());
  const loop = async (loopSignal: AbortSignal | undefined): Promise<number> => {
    await agent.start();
    if (settings.once) {
      // SIGTERM during a one-shot pass: running steps finish, the rest is superseded, status is pushed.
      loopSignal?.addEventListener('abort', () => void stopAgent(), { once: true });
      // One pass: every plan the commit calls for, then one drift check of every instance (and its repairs).
      const report = await agent.pass({ drift: 'all' });
      await agent.drain();
      const refused = mirror instanceof VerifyingMirror ? mirror.lastRefusal : undefined;
      if (refused) io.report(`refused ${refused.commit.slice(0, 12)} (${refused.verdict.reason}): ${refused.verdict.message}`);
      return Math.max(printReport(report, io), refused ? 1 : 0);
    }
    while (loopSignal?.aborted !== true) {
      const started = Date.now();
      try {
        await agent.pass({ wait: false });
        server?.markReady();
      } catch (err) {
        io.log('error', `poll failed: ${errorMessage(err)}`);
      }
      metrics.pollSeconds.observe((Date.now() - started) / 1000);
      metrics.queueDepth.set(agent.queueDepth);
      // Jitter (±10%) keeps many agents from fetching in lockstep.
      const untilSchedule = (agent.nextScheduleAt() ?? Infinity) - Date.now() + 50;
      await wake.sleep(Math.max(50, Math.min(settings.intervalMs * (0.9 + Math.random() * 0.2), untilSchedule)), loopSignal);
    }
    return 0;
  };
  try {
    if (server && settings.listen) io.log('info', `listening on ${await server.listen(settings.listen)}`);
    if (member) return await runAsShardMember(member, agent, mirror, settings.statusBranch ?? settings.branch, () => wake.now(), io.log, async (s) => { try { return await loop(s); } finally { await stopAgent(); } }, signal);
    if (!settings.leaderElection) return await loop(signal);
    // Only the lease holder acts; it stops (running steps superseded) before releasing the lease.
    let code = 0;
    const led = await runAsLeader(
      {
        // Its own sockets: a renewal never queues behind the agent's work in the shared pool.
        client: withOwnSockets(client), name: leaseNameFor(settings.repo, settings.branch), namespace: settings.leaseNamespace ?? DEFAULT_LEASE_NAMESPACE, log: io.log,
        leaseDurationMs: settings.lease.durationMs, renewDeadlineMs: settings.lease.renewDeadlineMs, retryPeriodMs: settings.lease.retryPeriodMs, ...(fence ? { fence } : {}),
        ...(elector ? { elector } : {}),
      },
      async (leading) => { try { code = await loop(leading); } finally { await stopAgent(); } },
      signal,
    );
    if (led.kind === 'lost') {
      io.log('error', 'lost the leader lease; exiting so that a restarted agent waits for it again');
      return 1;
    }
    return code;
  } finally {
    await stopAgent();
    await team.close();
    clusters.close();
    await server?.close();
    await renderer.close();
    client.close();
  }
}

/**
 * With leader election every cluster write and every status push is fenced by the leader lease; a
 * shard member (docs/scale-out.md) is fenced by its own member lease, and its status commits carry no term.
 */
/** The client for a Lease: its own sockets where the client has any (see KubeClient.withOwnConnection). */
const withOwnSockets = (client: KubeClient): KubeClient => client.withOwnConnection?.() ?? client;

function fencing(settings: AgentSettings, client: KubeClient, clientOptions: LeaseClientOptions, log: AgentLog): { member?: ShardMember; fence?: LeaseFence; agentFence?: Fence; ownership: { ownership?: ShardMember }; elector?: ThreadedLeaderElector } {
  // Leases are renewed from a thread of their own (shards/lease-renewer/): a busy event loop does not cost them.
  if (settings.shardSet !== undefined) {
    const member = shardMemberFor({ ...settings, shardSet: settings.shardSet }, client, log, clientOptions);
    return { member, fence: member.fence, agentFence: termlessFence(member.fence), ownership: { ownership: member } };
  }
  if (!settings.leaderElection) return { ownership: {} };
  const { durationMs: leaseDurationMs, renewDeadlineMs, retryPeriodMs } = settings.lease;
  const elector = new ThreadedLeaderElector(
    { name: leaseNameFor(settings.repo, settings.branch), namespace: settings.leaseNamespace ?? DEFAULT_LEASE_NAMESPACE, identity: defaultIdentity() },
    { client: clientOptions, leaseDurationMs, renewDeadlineMs, retryPeriodMs, log },
  );
  return { fence: elector.fence, ownership: {}, elector };
}

/**
 * The router of instances to their target clusters. Always there: baton.yaml may declare clusters in a
 * later commit. Instances without `cluster:` get exactly the agent's own client, store and recorder.
 */
function clusterRouter(settings: AgentSettings, decl: RepositoryDecl | undefined, own: { client: KubeClient; acting: KubeClient; fence: Fence | undefined; team: TeamSetup; log: AgentLog }): ClusterRouter {
  const tenants = decl?.tenants;
  const { fence, acting } = own;
  const tenantClientFor = own.team.agentOptions.clientFor;
  const eventLog: KubeEventRecorderOptions = { log: (level, message) => own.log(level, message) };
  // A tenant's impersonating client is fenced like the agent's own.
  const ownClientFor = tenantClientFor ? (fence ? fencedClients(tenantClientFor, fence) : tenantClientFor) : () => acting;
  return new ClusterRouter({
    own: own.client, ownClientFor, ownCheckpoints: new ConfigMapCheckpointStore(acting),
    ...(settings.events ? { ownEvents: new KubeEventRecorder(acting, eventLog), events: eventLog } : {}),
    ...(settings.kubeconfig ? { kubeconfigPath: settings.kubeconfig } : {}),
    ...(fence ? { fence: (c: KubeClient) => fencedClient(c, fence) } : {}),
    // In the agent's own cluster, beside its Lease; written through the fence like every other write.
    identities: new ClusterIdentityRecord(acting, settings.leaseNamespace ?? DEFAULT_LEASE_NAMESPACE, identityRecordName(settings.repo, settings.branch)),
    userOf: (key) => {
      const match = tenantOf(tenants, `instances/${key.namespace}/${key.name}.yaml`);
      const sa = match.kind === 'tenant' ? match.tenant.serviceAccount : undefined;
      return sa && `system:serviceaccount:${sa.namespace}:${sa.name}`;
    },
  }, decl?.clusters ?? []);
}

/** The agent's per-instance options through the router: the client, and the cluster valuesFrom objects are read from. */
function routedOptions(clusters: ClusterRouter, team: TeamSetup): Pick<AgentOptions, 'clusters' | 'clientFor' | 'valuesFor'> {
  return {
    clusters,
    clientFor: (key) => clusters.clientFor(key),
    valuesFor: (key) => ({ ...team.agentOptions.valuesFor?.(key), cluster: clusters.clientFor(key) }),
  };
}

function refusalOf(mirror: VerifyingMirror): CommitRefusal | undefined {
  const r = mirror.lastRefusal;
  return r && { commit: r.commit, reason: r.verdict.reason, message: r.verdict.message };
}

function printReport(report: PassReport, io: RunAgentIO): number {
  if (report.reports.length === 0) io.report(`nothing to do at ${report.commit?.slice(0, 12) ?? '(no commit)'}`);
  let failed = false;
  for (const r of report.reports) {
    const o = r.outcome;
    const text = o.kind === 'complete' ? `${o.plan} COMPLETE` : o.kind === 'failed' ? `${o.plan} FAILED: ${o.message}` : o.kind === 'superseded' ? `${o.plan} superseded` : `${o.kind}: ${o.message}`;
    io.report(`${r.instance}: ${text} (${r.reason})`);
    if (o.kind === 'failed' || o.kind === 'refused' || o.kind === 'error') failed = true;
  }
  return failed ? 1 : 0;
}

/** A sleep that a webhook can cut short. */
class Wake {
  private resolve: (() => void) | undefined;

  now(): void {
    this.resolve?.();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => { clearTimeout(timer); signal?.removeEventListener('abort', done); this.resolve = undefined; resolve(); };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done);
      this.resolve = done;
    });
  }
}
