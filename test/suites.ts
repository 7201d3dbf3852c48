/**
 * Which test files run where. `npm test` (vitest.config.ts) is the everyday suite and must stay fast
 * (docs/testing.md: at most 4 minutes on an idle 2-core machine); the slowest end-to-end files, each a
 * minute or more of agents, git and kubectl round trips, run with `npm run test:e2e`
 * (vitest.e2e.config.ts), which CI (.ci/run) runs after `npm test`. Measured with
 * `npx vitest run --reporter=json` (per-file durations); move a file here when it dominates the suite.
 */
export const E2E_ONLY_FILES: readonly string[] = [
  'test/control/agent-control.test.ts',
  'test/control/canary.test.ts',
  'test/recovery/agent-plans.test.ts',
  'test/cluster/server/kubectl.test.ts',
  'test/cluster/controllers/kubectl.e2e.test.ts',
  'test/recovery/cli.test.ts',
  'test/recovery/agent-recovery.test.ts',
  'test/drift/sweep.test.ts',
  'test/sync/agent-drift.test.ts',
  'test/preview/preview.test.ts',
  'test/plans/crash.test.ts',
  'test/shards/status-contention.test.ts',
  // Second round (2026-11-24, npm test at 373 s after Kafka, clusters and the control tests landed):
  'test/plans/e2e-catalog.test.ts',
  'test/sync/paused-leader.test.ts',
  'test/clusters/many-clusters.test.ts',
  // Agents against three simulated clusters, one with TLS and a token (about 40 s).
  'test/clusters/cluster-faults.test.ts',
  // An agent (--once) against two clusters while baton.yaml re-points a cluster name (about 30 s under load).
  'test/clusters/server-change.test.ts',
  // An agent (--once) against three clusters: a name re-pointed while a status is lost (about 70 s under load).
  'test/clusters/cluster-identity.test.ts',
  'test/preview/ci-definitions.test.ts',
  'test/demo/demo.test.ts',
  'test/testing/baton-test.test.ts',
  // Third round: an agent with drift repairs and request commits.
  'test/control/undisturbed-side-runs.test.ts',
];

/**
 * Files of `npm test` that run in a module graph of their own (vitest.config.ts, project `isolated`);
 * every other file shares its worker's modules with the files before it. Here: files that change
 * process-wide state another file would see: nock (it patches http for the whole process, and some
 * files disable real connections), and process.env.
 */
export const ISOLATED_FILES: readonly string[] = [
  // nock
  'test/plans/kube-events.test.ts',
  'test/plans/engine-faults-nock.test.ts',
  'test/notify/notify.test.ts',
  'test/notify/pr-comment.test.ts',
  'test/kube/errors.test.ts',
  'test/kube/http-client.test.ts',
  'test/kube/kubeconfig.test.ts',
  // nock and process.env
  'test/sync/team-setup.test.ts',
  // process.env
  'test/control/cli-control.test.ts',
  'test/secrets/cli.test.ts',
  'test/sync/cli.test.ts',
];
