/**
 * Operator requests through Git: `requests/<namespace>/<instance>.yaml` holds the instance's recent
 * requests (`baton plan trigger|pause|resume|...` each append one in a commit), oldest first, each with a
 * unique id. The agent carries out each id once (the engine records handled ids in its checkpoint, and
 * the status file lists them). The format is `requestSchema` (src/render/schemas.ts); docs/operations.md
 * describes it for users and /work/notes/REQUESTS.md for the other engineers.
 */
import jsYaml from 'js-yaml';
import type { PlanRequest } from '../plans/selection.js';
import { requestSchema, type RequestAction } from '../render/index.js';
import { BatonError } from '../errors.js';
import type { InstanceKey } from './status-file.js';

export const requestPath = (i: InstanceKey): string => `requests/${i.namespace}/${i.name}.yaml`;

/** Requests a file keeps: appending more drops the oldest (they were carried out long ago, or never will be). */
export const REQUESTS_KEPT = 20;

/** One request as the agent and the CLI see it (the legacy `PlanRequest` form reads as a `trigger`). */
export interface OperatorRequest {
  id: string;
  action: RequestAction;
  plan?: string;
  phase?: string;
  step?: string;
  pod?: string;
  args: Record<string, string>;
  reason?: string;
  requestedBy?: string;
  requestedAt?: string;
}

export class RequestFileError extends BatonError {
  constructor(file: string, detail: string) {
    super('REQUEST_FILE_INVALID', `${file}: ${detail}`, { file });
  }
}

const HEADER = '# Operator requests (docs/operations.md). The agent carries out each id once; append, do not reuse ids.\n';

export function formatRequests(requests: readonly OperatorRequest[]): string {
  const doc = { apiVersion: 'baton.dev/v1alpha1', kind: 'Requests', requests: requests.map(withoutEmpty) };
  return `${HEADER}${jsYaml.dump(doc, { schema: jsYaml.CORE_SCHEMA, lineWidth: -1 })}`;
}

/** A file with one trigger request (tests, and what `baton plan trigger` wrote for a first request). */
export function formatRequest(req: PlanRequest & { requestedAt: string; requestedBy?: string; reason?: string }): string {
  return formatRequests([{ id: req.id, action: 'trigger', plan: req.plan, args: req.args, requestedAt: req.requestedAt, ...(req.requestedBy ? { requestedBy: req.requestedBy } : {}), ...(req.reason ? { reason: req.reason } : {}) }]);
}

/** `existing` (the file's text, if any) with `request` appended, keeping the newest REQUESTS_KEPT. */
export function appendRequest(existing: string | undefined, file: string, request: OperatorRequest): string {
  const before = existing === undefined ? [] : parseRequestFile(existing, file);
  if (before.some((r) => r.id === request.id)) throw new RequestFileError(file, `id ${request.id} is already in the file`);
  return formatRequests([...before, request].slice(-REQUESTS_KEPT));
}

/** Every request of the file, oldest first; a broken file is an error naming the file, the field and what was expected. */
export function parseRequestFile(text: string, file: string): OperatorRequest[] {
  let doc: unknown;
  try {
    doc = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, filename: file });
  } catch (err) {
    throw new RequestFileError(file, `not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
  const result = requestSchema.safeParse(doc);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new RequestFileError(file, `field ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'} (expected apiVersion baton.dev/v1alpha1, kind Requests and a list of requests with id and action)`);
  }
  const data = result.data;
  if (data.kind === 'PlanRequest') {
    return [{ id: data.id, action: 'trigger', plan: data.plan, args: data.args, ...opt('reason', data.reason), ...opt('requestedBy', data.requestedBy), ...opt('requestedAt', data.requestedAt) }];
  }
  return data.requests.map((r) => ({
    id: r.id, action: r.action, args: r.args ?? {},
    ...opt('plan', r.plan), ...opt('phase', r.phase), ...opt('step', r.step), ...opt('pod', r.pod),
    ...opt('reason', r.reason), ...opt('requestedBy', r.requestedBy), ...opt('requestedAt', r.requestedAt),
  }));
}

/**
 * The plan request selection sees: the newest `trigger` of the file (a later trigger replaces an
 * earlier one the agent has not run yet, as it always did).
 */
export function triggerOf(requests: readonly OperatorRequest[]): PlanRequest | undefined {
  const t = [...requests].reverse().find((r) => r.action === 'trigger');
  return t?.plan === undefined ? undefined : { id: t.id, plan: t.plan, args: { ...t.args } };
}

/** The trigger request of a request file (kept for callers that only run plans). */
export function parseRequest(text: string, file: string): PlanRequest | undefined {
  return triggerOf(parseRequestFile(text, file));
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

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function withoutEmpty(r: OperatorRequest): Record<string, unknown> {
  const { args, ...rest } = r;
  return { ...rest, ...(Object.keys(args).length > 0 ? { args } : {}) };
}
