/**
 * `baton plan check <namespace/instance | instance-file>`: drift and health of one instance now, as
 * the agent's drift check sees them (src/drift/), from a local checkout of the repository and the
 * cluster. `--repair` re-applies what drifted (what the agent does under the `repair` policy).
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { desiredSetOf, driftSettingsOf, repair, sweep, type InstanceDrift, type RepairResult } from '../../drift/index.js';
import { ConfigMapCheckpointStore } from '../../plans/checkpoint-configmap.js';
import { defaultHooks } from '../../plans/defaults.js';
import { DirectoryTree, loadSettings, maskSensitive } from '../../render/index.js';
import { driftSectionOf, healthSectionOf, type DriftSection, type HealthSection } from '../../sync/status-sections.js';
import type { CliIO } from '../io.js';
import { withClusterFlags, withInstance, withTargetFlag, type ClusterFlags } from './apply.js';

interface CheckFlags extends ClusterFlags {
  repair?: boolean;
}

export function registerPlanCheck(plan: Command, io: CliIO): void {
  withTargetFlag(withClusterFlags(plan.command('check')))
    .description('Check one instance for drift from its applied desired state, and its health, now (--repair re-applies what drifted)')
    .argument('<instance>', 'namespace/instance (under --repo, default the current directory), or an instances/<namespace>/<instance>.yaml file')
    .option('--repair', 're-apply the drifted objects now, as the agent does under the repair policy')
    .action(async (target: string, flags: CheckFlags) => {
      const file = instanceFileOf(target, flags, io.cwd);
      if (file === undefined) {
        io.stderr(`error: ${target}: expected namespace/instance or instances/<namespace>/<instance>.yaml\n`);
        io.exitCode = 2;
        return;
      }
      io.exitCode = await withInstance(io, file, flags, {}, async (source, client) => {
        const root = flags.repo !== undefined ? resolve(io.cwd, flags.repo) : resolve(io.cwd, file, '../../..');
        const repoSettings = await loadSettings(new DirectoryTree(root));
        const settings = driftSettingsOf(repoSettings.ok ? repoSettings.value.decl.sync : undefined, source.instance.decl.sync);
        const key = { namespace: source.instance.namespace, name: source.instance.name };
        const desired = desiredSetOf(source);
        const report = await sweep({ client, hooks: defaultHooks(), instances: [{ key, policy: settings.policy === 'ignore' ? 'report' : settings.policy, desired: () => desired }] });
        const result = report.instances[0];
        if (result === undefined) return 1;
        let repaired: RepairResult | undefined;
        if (flags.repair === true && result.objects.some((o) => o.action === 'repair')) {
          repaired = await repair({ client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(client), instance: key, drifted: result.objects, desired: await desired, frameworkVersion: source.desired.frameworkVersion });
        }
        const drift = driftSectionOf(result, settings.policy);
        const health = healthSectionOf(result);
        const out = maskSensitive({ instance: `${key.namespace}/${key.name}`, drift, health, ...(repaired ? { repair: repairSummary(repaired) } : {}), requests: report.stats.requests }, source.sensitiveValues);
        io.stdout(flags.output === 'json' ? `${JSON.stringify(out, null, 2)}\n` : checkText(out.instance, out.drift, out.health, out.repair));
        return exitCode(result, repaired);
      });
    });
}

/** `namespace/instance` under --repo (or the current directory), or an instance file as given. */
export function instanceFileOf(target: string, flags: Pick<ClusterFlags, 'repo'>, cwd: string): string | undefined {
  if (/\.ya?ml$/.test(target)) return target;
  const m = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(target);
  if (!m?.[1] || !m[2]) return undefined;
  const root = resolve(cwd, flags.repo ?? '.');
  const file = join(root, 'instances', m[1], `${m[2]}.yaml`);
  const yml = join(root, 'instances', m[1], `${m[2]}.yml`);
  return relative(cwd, existsSync(file) || !existsSync(yml) ? file : yml).split(sep).join('/');
}

function repairSummary(r: RepairResult): { result: string; message: string } {
  switch (r.kind) {
    case 'complete': return { result: 'COMPLETE', message: `re-applied ${r.repaired.map((o) => o.object).join(', ')}` };
    case 'failed': return { result: 'FATAL_ERROR', message: r.error.message };
    case 'superseded': return { result: 'SUPERSEDED', message: 'stopped' };
    case 'skipped': return { result: 'SKIPPED', message: r.reason };
  }
}

/** 0: in sync (or repaired) and nothing unreadable; 1: drift, errors, or a failed repair. */
function exitCode(result: InstanceDrift, repaired: RepairResult | undefined): number {
  if (result.errors.length > 0 || result.checkpointMissing === true) return 1;
  if (repaired !== undefined) return repaired.kind === 'complete' && repaired.heldBack.length === 0 && result.objects.every((o) => o.action === 'repair') ? 0 : 1;
  return result.objects.length > 0 ? 1 : 0;
}

function checkText(instance: string, drift: DriftSection, health: HealthSection, repaired: { result: string; message: string } | undefined): string {
  const lines = [`instance ${instance}: drift ${drift.status} (policy ${drift.policy}), health ${health.status}${drift.message ? ` - ${drift.message}` : ''}`];
  for (const o of drift.objects) {
    const what = o.reason === 'changed' ? `changed ${(o.fields ?? []).join(', ')}${o.managers?.length ? ` (owned by ${o.managers.join(', ')})` : ''}` : o.reason;
    lines.push(`  ${o.object}: ${what}${o.action === 'report' ? ' [reported only: the object does not take fields from others]' : ''}`);
  }
  if (health.objects.length > 0) lines.push('health:', ...health.objects.map((o) => `  ${o.object}: ${o.status} (${o.message})`));
  if (drift.errors.length > 0) lines.push('could not check:', ...drift.errors.map((e) => `  ${e}`));
  if (repaired) lines.push(`repair ${repaired.result}: ${repaired.message}`);
  return `${lines.join('\n')}\n`;
}
