/** The preview as plain text for a terminal. */
import { refLabel } from '../kube/object.js';
import { childLine, clusterLine, countChanges, namesClusters, outcomeCell, whyCell } from './format-markdown.js';
import type { InstancePreview, PreviewReport } from './types.js';

export function formatText(report: PreviewReport): string {
  const out: string[] = [`Baton preview ${report.base} -> ${report.head}: ${report.acceptable ? 'acceptable' : 'REFUSED'}`];
  for (const p of report.problems) out.push(`  invalid ${p.file}${p.line ? `:${p.line}` : ''} ${p.code}: ${p.message}`);
  for (const fw of report.frameworks) {
    out.push(`framework ${fw.name} ${fw.version} ${fw.change}`);
    if (fw.instancesUsing.length > 0) out.push(`  instances on it: ${fw.instancesUsing.join(', ')}`);
    if (fw.instancesThatCouldMove.length > 0) out.push(`  affected once they move to it: ${fw.instancesThatCouldMove.join(', ')}`);
  }
  if (report.order) {
    out.push('order (dependsOn):');
    report.order.forEach((o, i) => out.push(`  ${i + 1}. ${o.instance}${o.waitsFor.length > 0 ? ` (waits until ${o.waitsFor.join(', ')} applied and healthy)` : ''}`));
  }
  const clusters = namesClusters(report);
  for (const inst of report.instances) out.push(...instanceText(inst, clusters));
  if (report.instances.length === 0 && report.frameworks.length === 0) out.push('no instance is affected');
  return `${out.join('\n')}\n`;
}

function instanceText(inst: InstancePreview, clusters: boolean): string[] {
  const plainOutcome = outcomeCell(inst).replace(/`/g, '').replace('❌ ', '');
  const out = [`${inst.instance.namespace}/${inst.instance.name}: ${plainOutcome} (${whyCell(inst)})`];
  if (clusters) out.push(`  target: ${clusterLine(inst)}`);
  if (inst.outcome === 'refused') return [...out, ...inst.details.map((d) => `  ${d}`)];
  if (inst.outcome === 'run') for (const w of inst.warnings) out.push(`  warning: ${w}`);
  if (inst.outcome === 'run') for (const w of inst.waits ?? []) out.push(`  canary: ${w}`);
  if (inst.outcome === 'run' || inst.outcome === 'remove') {
    for (const s of inst.steps) {
      out.push(`  ${s.phase}/${s.step}: ${countChanges(s.changes)}`);
      for (const c of s.children ?? []) out.push(`    ${childLine(c)}`);
      for (const c of s.changes) {
        if (c.change === 'unchanged') continue;
        out.push(`    ${c.change} ${refLabel(c.ref)}`);
        if (c.change === 'update') out.push(...c.diff.trimEnd().split('\n').map((l) => `      ${l}`));
      }
    }
    for (const r of inst.pruned) out.push(`  prune ${refLabel(r)}`);
    if (inst.outcome === 'run') for (const d of inst.scaleDowns ?? []) out.push(`  scale-down ${scaleDownLine(d)}`);
  }
  if (inst.outcome === 'run' || inst.outcome === 'no-plan') {
    for (const s of inst.schedules) out.push(`  schedule ${s.plan} ${s.change}: ${s.cron} (${s.timezone}) next ${s.nextRuns.join(', ') || '-'}`);
  }
  return out;
}

/** `StatefulSet cache-replica: removes cache-replica-2, cache-replica-1; deletes claims data-cache-replica-2, data-cache-replica-1 once it completed`. */
export function scaleDownLine(d: { statefulSet: string; pods: string[]; claims: string[]; volumes: 'keep' | 'delete'; plan?: string }): string {
  const plan = d.plan ? `runs plan ${d.plan} per removed pod, then ` : '';
  const claims = d.claims.length === 0 ? 'no claims' : d.volumes === 'delete' ? `deletes claims ${d.claims.join(', ')} once it completed` : `keeps claims ${d.claims.join(', ')} (decommission.volumes: keep)`;
  return `StatefulSet ${d.statefulSet}: removes ${d.pods.join(', ')}; ${plan}${claims}`;
}
