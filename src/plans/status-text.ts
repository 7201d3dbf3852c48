/** `baton plan status` as text: the active run as a tree of phases and steps, then inventory and refusal. Pure. */
import { targetApplied, type Checkpoint } from './checkpoint.js';
import { holdText, stateText } from '../control/describe.js';

export function checkpointText(cp: Checkpoint): string {
  const lines = [`instance ${cp.instance.namespace}/${cp.instance.name} (framework ${cp.framework}${cp.applied ? ` ${cp.applied.frameworkVersion}` : ''})`];
  const run = cp.active;
  if (run === undefined) lines.push('no plan has run');
  else {
    lines.push(`plan ${run.plan}: ${stateText(run.state)}  (${run.reason})`);
    for (const ph of run.phases) {
      lines.push(`  phase ${ph.name} [${ph.strategy}]: ${stateText(ph.state)}`);
      for (const s of ph.steps) lines.push(`    step ${s.name}: ${stateText(s.state)}`);
    }
    const held = holdText(cp.instance, run);
    if (held) lines.push(held);
  }
  if (cp.refusal) lines.push(`refused (${cp.refusal.code}) at ${cp.refusal.at}: ${cp.refusal.message}`);
  lines.push(syncText(cp));
  const repair = cp.repair?.last;
  if (repair) lines.push(`last repair: ${stateText(repair.state)} (${repair.reason})`);
  for (const f of cp.repair?.fights.filter((x) => x.backoffUntil !== undefined) ?? []) {
    lines.push(`fight: ${f.object} ${f.fields.join(', ')} changed back by ${f.managers.join(', ') || 'another manager'} after ${f.repairs} repairs; repairs held back until ${f.backoffUntil ?? '?'}`);
  }
  for (const r of (cp.requestLog ?? []).slice(0, 5)) {
    lines.push(`request ${r.id} ${r.action} (${r.via}${r.by ? `, by ${r.by}` : ''}): ${r.result === 'done' ? r.message : `refused ${r.code ?? ''}: ${r.message}`}${r.reason ? ` - ${r.reason}` : ''}`);
  }
  lines.push(`inventory: ${cp.inventory.length} object${cp.inventory.length === 1 ? '' : 's'}`);
  if (cp.history.length > 0) lines.push(`history: ${cp.history.map((h) => `${h.plan} ${h.state.status}`).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** Is the desired state applied: the sync line of `baton plan status`. */
function syncText(cp: Checkpoint): string {
  const f = cp.target?.failure;
  if (cp.target && f) return `sync: Failed - ${cp.target.plan} failed${f.phase ? ` at ${f.phase}/${f.step ?? '?'}` : ''} (${f.code}), attempt ${f.attempts}; next retry at ${f.nextRetryAt}${cp.applied ? `; applied is still ${cp.applied.frameworkVersion} from ${cp.applied.at ?? 'an earlier run'}` : ''}`;
  if (targetApplied(cp)) return `sync: Synced - applied by ${cp.applied?.plan ?? 'a plan'}${cp.applied?.at ? ` at ${cp.applied.at}` : ''}`;
  return cp.target ? `sync: Progressing - ${cp.target.plan} started ${cp.target.since}` : 'sync: OutOfSync - never applied';
}
