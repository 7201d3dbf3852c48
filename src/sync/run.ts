/**
 * `baton agent` as a library call: resolves settings, opens the bare clone, connects to the cluster
 * and runs one pass (`once`) or the poll loop until the signal aborts, then shuts down gracefully
 * (running steps finish, pending status is pushed).
 */
import { createKubeClient } from '../kube/http-client.js';
import { ConfigMapCheckpointStore } from '../plans/checkpoint-configmap.js';
import { defaultHooks } from '../plans/defaults.js';
import { loadSettings, Renderer } from '../render/index.js';
import { GitMirror } from '../git/mirror.js';
import { ObjectStore } from '../git/tree.js';
import { errorMessage } from '../errors.js';
import { Agent, type AgentLog, type PassReport } from './agent.js';
import { withRepositorySettings, type AgentSettings } from './settings.js';
import { AgentServer } from './server.js';
import { AgentMetrics } from './metrics.js';

export interface RunAgentIO {
  log: AgentLog;
  /** One line per instance outcome of a `--once` pass. */
  report: (line: string) => void;
}

export interface Explicit { interval: boolean; statusBranch: boolean }

export async function runAgent(base: AgentSettings, explicit: Explicit, io: RunAgentIO, signal?: AbortSignal): Promise<number> {
  const mirror = new GitMirror({ dir: base.dataDir, remote: { url: base.repo, auth: base.auth } });
  await mirror.init();
  const tip = await mirror.fetch(base.branch);
  let decl;
  if (tip !== undefined) {
    const loaded = await loadSettings(await new ObjectStore(mirror.dir).at(tip));
    if (loaded.ok) decl = loaded.value.decl;
    else io.log('warn', `baton.yaml is invalid, using defaults: ${loaded.problems.map((p) => p.message).join('; ')}`);
  }
  const settings = withRepositorySettings(base, decl, explicit);
  const client = await createKubeClient({ ...(settings.kubeconfig ? { kubeconfigPath: settings.kubeconfig } : {}), ...(settings.context ? { context: settings.context } : {}) });
  const renderer = new Renderer();
  const metrics = new AgentMetrics();
  const agent = new Agent({
    mirror, branch: settings.branch, client, checkpoints: new ConfigMapCheckpointStore(client), hooks: defaultHooks(), renderer,
    author: settings.author, concurrency: settings.concurrency, log: io.log,
    ...(settings.statusBranch ? { statusBranch: settings.statusBranch } : {}),
    onPushRetry: () => metrics.pushRetries.inc(),
    onOutcome: (o) => metrics.plans.inc({ result: o.kind }),
  });
  const wake = new Wake();
  const server = settings.listen ? new AgentServer({ metrics, ...(settings.webhookSecret ? { webhookSecret: settings.webhookSecret } : {}), onPush: () => wake.now(), log: io.log }) : undefined;
  try {
    if (server && settings.listen) io.log('info', `listening on ${await server.listen(settings.listen)}`);
    await agent.start();
    if (settings.once) {
      const report = await agent.pass();
      await agent.drain();
      return printReport(report, io);
    }
    while (signal?.aborted !== true) {
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
      await wake.sleep(Math.max(50, Math.min(settings.intervalMs * (0.9 + Math.random() * 0.2), untilSchedule)), signal);
    }
    return 0;
  } finally {
    await agent.stop();
    await server?.close();
    await renderer.close();
    client.close();
  }
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
