/**
 * The preview as Markdown fit for a pull-request comment: a summary table first, then one section per
 * instance with its steps. Diffs longer than a screen fold into <details> so the comment stays readable.
 */
import { scaleDownLine } from './format-text.js';
import { refLabel } from '../kube/object.js';
import { targetText } from '../clusters/describe.js';
import type { ChildPreview, InstancePreview, LiveChange, ObjectChange, PreviewReport, ScheduleChange, StepPreview } from './types.js';

const INLINE_DIFF_LINES = 15;

export function formatMarkdown(report: PreviewReport): string {
  const out: string[] = [`## Baton preview \`${short(report.base)}\` → \`${short(report.head)}\``, ''];
  out.push(report.acceptable ? '✅ This change is acceptable.' : '❌ This change would be refused (see below).', '');
  if (report.problems.length > 0) {
    out.push('### Invalid files', '');
    for (const p of report.problems) out.push(`- \`${p.file}${p.line ? `:${p.line}` : ''}\` **${p.code}**: ${escapeMd(p.message)}`);
    out.push('');
  }
  if (report.instances.length === 0 && report.frameworks.length === 0) out.push('No instance is affected.', '');
  const clusters = namesClusters(report);
  if (report.instances.length > 0) {
    out.push(clusters ? '| Instance | Cluster | Outcome | Why |' : '| Instance | Outcome | Why |', clusters ? '|---|---|---|---|' : '|---|---|---|');
    for (const inst of report.instances) out.push(`| \`${id(inst)}\` | ${clusters ? `${escapeMd(clusterCell(inst))} | ` : ''}${outcomeCell(inst)} | ${escapeMd(whyCell(inst))} |`);
    out.push('');
  }
  if (report.order) {
    out.push('### Order (`dependsOn`)', '');
    report.order.forEach((o, i) => out.push(`${i + 1}. \`${o.instance}\`${o.waitsFor.length > 0 ? ` waits until ${o.waitsFor.map((w) => `\`${w}\``).join(', ')} ${o.waitsFor.length === 1 ? 'is' : 'are'} applied and healthy` : ''}`));
    out.push('');
  }
  for (const fw of report.frameworks) {
    out.push(`### Framework \`${fw.name}\` ${fw.version} ${fw.change}`, '');
    if (fw.instancesUsing.length > 0) out.push(`Instances on this version: ${fw.instancesUsing.map((i) => `\`${i}\``).join(', ')}.`);
    if (fw.instancesThatCouldMove.length > 0) {
      out.push(`Affected once they move to ${fw.version}: ${fw.instancesThatCouldMove.map((i) => `\`${i}\``).join(', ')}.`);
    }
    out.push('');
  }
  for (const inst of report.instances) out.push(...instanceSection(inst, clusters));
  return `${out.join('\n').trimEnd()}\n`;
}

function instanceSection(inst: InstancePreview, clusters: boolean): string[] {
  const out = [`### \`${id(inst)}\`: ${outcomeCell(inst)}`, ''];
  if (clusters) out.push(`Target: ${escapeMd(clusterLine(inst))}`, '');
  switch (inst.outcome) {
    case 'refused':
      out.push(`**${inst.code}**: ${escapeMd(inst.message)}`, '');
      for (const d of inst.details) out.push(`- ${escapeMd(d)}`);
      if (inst.details.length > 0) out.push('');
      return out;
    case 'no-plan':
      for (const r of inst.reasons) out.push(`- ${escapeMd(r)}`);
      out.push('', ...schedules(inst.schedules));
      return out;
    case 'remove':
      out.push(inst.cleanupPlan ? `Runs \`${inst.cleanupPlan}\`, then deletes every object the instance owns.` : 'Deletes every object the instance owns.', '');
      out.push(...steps(inst.steps), ...pruned(inst.pruned));
      return out;
    case 'run':
      for (const r of inst.reasons) out.push(`- ${escapeMd(r)}`);
      for (const w of inst.warnings) out.push(`- ⚠️ ${escapeMd(w)}`);
      for (const w of inst.waits ?? []) out.push(`- ⏸️ canary: ${w}`);
      out.push('', ...steps(inst.steps), ...pruned(inst.pruned), ...scaleDowns(inst.scaleDowns ?? []), ...schedules(inst.schedules));
      if (inst.live) out.push(...live(inst.live));
      return out;
  }
}

function steps(list: StepPreview[]): string[] {
  const out: string[] = [];
  for (const s of list) {
    out.push(`**Phase \`${s.phase}\`, step \`${s.step}\`**: ${countChanges(s.changes)}`, '');
    for (const c of s.children ?? []) out.push(`- 🧩 ${childLine(c).replace(/^child instance (\S+)/, 'child instance `$1`')}`, '');
    for (const c of s.changes) out.push(...objectChange(c));
  }
  return out;
}

function objectChange(c: ObjectChange): string[] {
  switch (c.change) {
    case 'unchanged':
      return [];
    case 'delete':
      return [`- ➖ delete ${refLabel(c.ref)}`, ''];
    case 'create':
      return fenced(`➕ create ${refLabel(c.ref)}`, 'yaml', c.yaml);
    case 'update':
      return fenced(`✏️ change ${refLabel(c.ref)}`, 'diff', c.diff);
  }
}

function fenced(title: string, lang: string, body: string): string[] {
  const text = body.trimEnd();
  const block = [`\`\`\`${lang}`, text, '```'];
  if (text.split('\n').length <= INLINE_DIFF_LINES) return [`- ${title}`, '', ...block, ''];
  return ['<details>', `<summary>${escapeHtml(title)}</summary>`, '', ...block, '', '</details>', ''];
}

function pruned(refs: { kind: string; name: string; namespace?: string; apiVersion: string }[]): string[] {
  if (refs.length === 0) return [];
  return ['**Pruned after the plan completes:**', '', ...refs.map((r) => `- 🗑️ ${refLabel(r)}`), ''];
}

function scaleDowns(list: readonly Parameters<typeof scaleDownLine>[0][]): string[] {
  if (list.length === 0) return [];
  return ['**Scale-down:**', '', ...list.map((d) => `- ${d.volumes === 'delete' && d.claims.length > 0 ? '🗑️' : '📦'} ${escapeMd(scaleDownLine(d))}`), ''];
}

function schedules(list: ScheduleChange[]): string[] {
  if (list.length === 0) return [];
  const out = ['**Schedules:**', '', '| Plan | Change | Cron | Next runs |', '|---|---|---|---|'];
  for (const s of list) {
    const cron = s.previousCron ? `\`${s.previousCron}\` → \`${s.cron}\`` : `\`${s.cron}\``;
    out.push(`| \`${s.plan}\` | ${s.change} | ${cron} (${s.timezone}) | ${s.nextRuns.join(', ') || '—'} |`);
  }
  return [...out, ''];
}

function live(list: LiveChange[]): string[] {
  const out = ['**Against the live cluster (server-side dry run):**', ''];
  for (const c of list) {
    if (c.change === 'unchanged') continue;
    if (c.change === 'create') out.push(`- ➕ ${refLabel(c.ref)} does not exist yet`, '');
    else if (c.change === 'error') out.push(`- ❌ ${refLabel(c.ref)}: ${escapeMd(c.message)}`, '');
    else out.push(...fenced(`✏️ live ${refLabel(c.ref)}`, 'diff', c.diff));
  }
  if (out.length === 2) out.push('No difference against the live cluster.', '');
  return out;
}

/**
 * Whether the preview names clusters: an instance targets a baton.yaml cluster (or moves). A repository
 * with one cluster keeps its previews as they were; JSON always carries each instance's `cluster`.
 */
export function namesClusters(report: PreviewReport): boolean {
  return report.instances.some((i) => i.cluster.name !== undefined || i.clusterFrom !== undefined);
}

/** `edge`, `own` or `own → edge` (a move, refused). */
function clusterCell(inst: InstancePreview): string {
  const name = (t: { name?: string }): string => t.name ?? 'own';
  return inst.clusterFrom ? `${name(inst.clusterFrom)} → ${name(inst.cluster)}` : name(inst.cluster);
}

/** The target in words, with where it was before for a move. */
export function clusterLine(inst: InstancePreview): string {
  if (inst.clusterFrom) return `${targetText(inst.cluster)}, moved from ${targetText(inst.clusterFrom)} (refused: CLUSTER_MOVE)`;
  const r = inst.clusterRedeclared;
  if (r === undefined) return targetText(inst.cluster);
  const verdict = r.server === 'same' ? 'the same server'
    : r.server === 'changed' ? 'another API server (refused: CLUSTER_SERVER_CHANGED)'
      : 'server not known here; the agent stops the instance if it now reaches another API server (CLUSTER_SERVER_CHANGED)';
  return `${targetText(inst.cluster)}, redeclared in baton.yaml, was ${targetText(r.from)}: ${verdict}`;
}

/** A child instance a step creates or updates (Instance task). */
export function childLine(c: ChildPreview): string {
  return `child instance ${c.instance} (Instance task ${c.task}: framework ${c.framework} ${c.version}), created or updated by its own plans`;
}

export function countChanges(changes: ObjectChange[]): string {
  const counts = new Map<string, number>();
  for (const c of changes) counts.set(c.change, (counts.get(c.change) ?? 0) + 1);
  const words: Record<ObjectChange['change'], string> = { create: 'created', update: 'changed', unchanged: 'unchanged', delete: 'deleted' };
  const parts = (['create', 'update', 'delete', 'unchanged'] as const).filter((k) => counts.has(k)).map((k) => `${counts.get(k)} ${words[k]}`);
  return parts.join(', ') || 'no objects';
}

export function outcomeCell(inst: InstancePreview): string {
  switch (inst.outcome) {
    case 'run':
      return `runs \`${inst.plan}\``;
    case 'remove':
      return inst.cleanupPlan ? `removed (runs \`${inst.cleanupPlan}\`)` : 'removed';
    case 'refused':
      return '❌ refused';
    case 'no-plan':
      return 'no plan runs';
  }
}

export function whyCell(inst: InstancePreview): string {
  switch (inst.outcome) {
    case 'run':
    case 'no-plan':
      return inst.reasons.join('; ');
    case 'remove':
      return 'instance file removed';
    case 'refused':
      return inst.message;
  }
}

function id(inst: InstancePreview): string {
  return `${inst.instance.namespace}/${inst.instance.name}`;
}

function short(ref: string): string {
  return /^[0-9a-f]{40}$/.test(ref) ? ref.slice(0, 8) : ref;
}

function escapeMd(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
