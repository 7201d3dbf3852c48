/**
 * `baton render` output: the RenderedPlan as a YAML stream with phase/step headings as comments (apply
 * actions are documents; delete actions are comments naming the object), or the value itself as JSON.
 * Sensitive values are masked in both.
 */
import { dump } from 'js-yaml';
import { refLabel, refOf } from '../kube/object.js';
import { maskSensitive } from './mask.js';
import type { RenderedPlan } from './types.js';

export function planToJson(plan: RenderedPlan, sensitiveValues: readonly string[]): string {
  return `${JSON.stringify(maskSensitive(plan, sensitiveValues, { keys: true }), null, 2)}\n`;
}

export function planToYaml(plan: RenderedPlan, sensitiveValues: readonly string[]): string {
  // Keys too: a sensitive value used as a map key (a ConfigMap key, a label) is as visible as a value.
  const p = maskSensitive(plan, sensitiveValues, { keys: true });
  const out: string[] = [];
  out.push(`# plan ${p.plan} of instance ${p.instance.namespace}/${p.instance.name} (framework ${p.framework.name} ${p.framework.version}, app ${p.framework.appVersion || '-'}), phases ${p.strategy}`);
  for (const phase of p.phases) {
    out.push(`# phase ${phase.name} (steps ${phase.strategy})`);
    for (const step of phase.steps) {
      out.push(`# step ${phase.name}/${step.name}: ${step.actions.length} action(s) in one batch, timeout ${step.timeoutSeconds}s`);
      for (const a of step.actions) {
        if (a.action === 'delete') {
          out.push(`# delete ${refLabel(refOf(a.object))} (task ${a.task}, template ${a.template})`);
          continue;
        }
        out.push('---');
        out.push(`# apply${a.force ? ' --force-conflicts' : ''} (task ${a.task}, template ${a.template})`);
        out.push(dump(a.object, { noRefs: true, lineWidth: -1, sortKeys: false }).trimEnd());
      }
    }
  }
  return `${out.join('\n')}\n`;
}
