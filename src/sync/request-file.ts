/**
 * Manual plan requests through Git: `baton plan trigger` commits `requests/<namespace>/<instance>.yaml`
 * naming a plan, one-shot arguments and a unique id. The agent runs the request once (the engine
 * records handled ids in its checkpoint, and the status file lists them); a later trigger replaces
 * the file with a new id.
 */
import jsYaml from 'js-yaml';
import type { PlanRequest } from '../plans/selection.js';
import { requestSchema } from '../render/index.js';
import { BatonError } from '../errors.js';
import type { InstanceKey } from './status-file.js';

export const requestPath = (i: InstanceKey): string => `requests/${i.namespace}/${i.name}.yaml`;

const requestShape = requestSchema;

export class RequestFileError extends BatonError {
  constructor(file: string, detail: string) {
    super('REQUEST_FILE_INVALID', `${file}: ${detail}`, { file });
  }
}

export function formatRequest(req: PlanRequest & { requestedAt: string; requestedBy?: string }): string {
  const doc = { apiVersion: 'baton.dev/v1alpha1', kind: 'PlanRequest', id: req.id, plan: req.plan, args: req.args, requestedAt: req.requestedAt, ...(req.requestedBy ? { requestedBy: req.requestedBy } : {}) };
  return `# Written by \`baton plan trigger\`: the agent runs this plan once for this id.\n${jsYaml.dump(doc, { schema: jsYaml.CORE_SCHEMA, lineWidth: -1 })}`;
}

export function parseRequest(text: string, file: string): PlanRequest {
  let doc: unknown;
  try {
    doc = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, filename: file });
  } catch (err) {
    throw new RequestFileError(file, `not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
  const result = requestShape.safeParse(doc);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new RequestFileError(file, `field ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'} (expected apiVersion baton.dev/v1alpha1, kind PlanRequest, id, plan, args)`);
  }
  return { id: result.data.id, plan: result.data.plan, args: result.data.args };
}

/** Parses `KEY=VALUE` arguments; an argument without `=` is an error naming it. */
export function parseArgs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new BatonError('ARG_INVALID', `--arg ${JSON.stringify(pair)}: expected KEY=VALUE`, { arg: pair });
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}
