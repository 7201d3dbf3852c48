/**
 * Fault rules: what a resilience test asks the simulated API server to do wrong. Validated with zod so
 * a bad rule (from code, the CLI or the admin endpoint) is refused with the field and what was expected.
 */
import { z } from 'zod';
import { BatonError } from '../../errors.js';
import type { ApiVerb } from './types.js';

const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const satisfies readonly ApiVerb[];
const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1)]);

export const faultRuleSchema = z
  .object({
    /** Which requests: each field is an exact match (or one of a list); an absent field matches all. */
    verb: oneOrMany(z.enum(verbs)).optional(),
    resource: oneOrMany(z.string().min(1)).optional(),
    /** '' is the core group. */
    group: oneOrMany(z.string()).optional(),
    namespace: oneOrMany(z.string().min(1)).optional(),
    name: oneOrMany(z.string().min(1)).optional(),
    /** Probability that a matching request is affected. */
    rate: z.number().min(0).max(1).default(1),
    /** Answer with this status instead of serving the request. */
    error: z.union([z.literal(429), z.literal(500), z.literal(503)]).optional(),
    /** For 429 and 503: the Retry-After header (seconds). */
    retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
    /** Delay before answering (with or without an error). */
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    /** For watches: serve, then cut the connection after this long. */
    dropWatchAfterMs: z.number().int().min(0).max(3_600_000).optional(),
    /** Stop after affecting this many requests. */
    count: z.number().int().min(1).optional(),
  })
  .strict()
  .refine((r) => r.error !== undefined || r.latencyMs !== undefined || r.dropWatchAfterMs !== undefined, {
    message: 'a rule needs at least one effect: error, latencyMs or dropWatchAfterMs',
  });

/** A rule as written (rate and the rest optional). */
export type FaultRuleInput = z.input<typeof faultRuleSchema>;
/** A rule after defaults. */
export type FaultRule = z.output<typeof faultRuleSchema>;

export class FaultRuleError extends BatonError {
  constructor(message: string, context: Record<string, unknown>) {
    super('SIM_FAULT_RULE_INVALID', message, context);
  }
}

/** Validates rules, naming `where` (e.g. `--fault` or `POST /baton-sim/faults`) and the rule's field. */
export function parseFaultRules(input: unknown, where: string): FaultRule[] {
  const result = z.array(faultRuleSchema).safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const [index, ...field] = issue.path;
    const at = field.length > 0 ? `rules[${String(index)}].${field.map(String).join('.')}` : index === undefined ? 'rules' : `rules[${String(index)}]`;
    return `${at}: ${issue.message}`;
  });
  throw new FaultRuleError(`invalid fault rules in ${where}: ${problems.join('; ')}`, { where, problems });
}

const numericKeys = new Set(['rate', 'error', 'retryAfterSeconds', 'latencyMs', 'dropWatchAfterMs', 'count']);

/**
 * Reads one rule from the compact command-line form `key=value,key=value` (lists with `|`), e.g.
 * `verb=list|watch,resource=pods,error=503,rate=0.5`, then validates it like any rule.
 */
export function parseFaultSpec(spec: string, where = '--fault'): FaultRule {
  const rule: Record<string, unknown> = {};
  for (const part of spec.split(',').filter((p) => p.trim() !== '')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new FaultRuleError(`invalid fault rule in ${where}: "${part}" is not key=value`, { where, problems: [`${part}: expected key=value`] });
    const key = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    const values = raw.split('|');
    rule[key] = numericKeys.has(key) ? Number(raw) : values.length > 1 ? values : raw;
  }
  const [parsed] = parseFaultRules([rule], where);
  if (!parsed) throw new FaultRuleError(`invalid fault rule in ${where}: empty`, { where, problems: ['rule: empty'] });
  return parsed;
}
