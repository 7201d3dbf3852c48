/**
 * Fault injection for resilience tests: the simulated API server asks `intercept` about every request
 * and the admin endpoint changes the rules at run time. Deterministic for a given seed and request order.
 */
import type { FaultAdmin, FaultDecision, RequestInfo, RequestInterceptor } from './types.js';
import { parseFaultRules, type FaultRule, type FaultRuleInput, FaultRuleError } from './rules.js';
import { errorMessage } from '../../errors.js';

export interface FaultInjectorOptions {
  /** Seed of the pseudo-random rolls against each rule's `rate` (default 1). */
  seed?: number;
}

export interface FaultRuleState extends FaultRuleInput {
  id: number;
  /** Requests this rule has affected so far. */
  hits: number;
}

export interface FaultInjector extends RequestInterceptor, FaultAdmin {
  rules(): FaultRuleState[];
  setRules(rules: FaultRuleInput[]): void;
  addRules(rules: FaultRuleInput[]): void;
  clear(): void;
}

interface LiveRule { id: number; rule: FaultRule; hits: number }

/** mulberry32: tiny, fast and good enough to spread rolls; what matters is reproducibility. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function matches(field: string | string[] | undefined, value: string | undefined): boolean {
  if (field === undefined) return true;
  if (value === undefined) return false;
  return Array.isArray(field) ? field.includes(value) : field === value;
}

export function ruleMatches(rule: FaultRule, info: RequestInfo): boolean {
  return (
    matches(rule.verb, info.verb) &&
    matches(rule.resource, info.resource) &&
    matches(rule.group, info.group) &&
    matches(rule.namespace, info.namespace) &&
    matches(rule.name, info.name) &&
    // A watch-dropping rule with no other effect only concerns watches.
    (rule.dropWatchAfterMs === undefined || rule.error !== undefined || rule.latencyMs !== undefined || info.verb === 'watch')
  );
}

export function decisionOf(rule: FaultRule, info: RequestInfo): FaultDecision {
  if (rule.error !== undefined) {
    const decision: FaultDecision = { kind: 'error', code: rule.error };
    const retryAfter = rule.retryAfterSeconds ?? (rule.error === 429 ? 1 : undefined);
    if (retryAfter !== undefined && rule.error !== 500) decision.retryAfterSeconds = retryAfter;
    if (rule.latencyMs !== undefined) decision.delayMs = rule.latencyMs;
    return decision;
  }
  if (rule.dropWatchAfterMs !== undefined && info.verb === 'watch') return { kind: 'drop-watch', afterMs: rule.dropWatchAfterMs };
  return { kind: 'delay', ms: rule.latencyMs ?? 0 };
}

export function createFaultInjector(rules: FaultRuleInput[] = [], options: FaultInjectorOptions = {}): FaultInjector {
  let random = seededRandom(options.seed ?? 1);
  let nextId = 1;
  let live: LiveRule[] = [];
  const toLive = (input: unknown, where: string): LiveRule[] => parseFaultRules(input, where).map((rule) => ({ id: nextId++, rule, hits: 0 }));
  live = toLive(rules, 'createFaultInjector');

  const state = (): FaultRuleState[] => live.map(({ id, rule, hits }) => ({ ...rule, id, hits }));

  const injector: FaultInjector = {
    intercept(info) {
      for (const entry of live) {
        if (entry.rule.count !== undefined && entry.hits >= entry.rule.count) continue;
        if (!ruleMatches(entry.rule, info)) continue;
        // Roll only for matching rules so one rule's traffic does not shift another's sequence.
        if (random() >= entry.rule.rate) continue;
        entry.hits++;
        return decisionOf(entry.rule, info);
      }
      return { kind: 'pass' };
    },
    rules: state,
    setRules(input) {
      live = toLive(input, 'setRules');
    },
    addRules(input) {
      live = [...live, ...toLive(input, 'addRules')];
    },
    clear() {
      live = [];
    },
    handle(method, body) {
      try {
        return handleAdmin(method.toUpperCase(), body);
      } catch (err) {
        if (err instanceof FaultRuleError) return { status: 400, body: { error: err.code, message: err.message, problems: err.context.problems } };
        return { status: 500, body: { error: 'SIM_FAULT_ADMIN', message: errorMessage(err) } };
      }
    },
  };

  /** GET: the rules and their hits; PUT: replace ({rules, seed?}); POST: append ({rules} or one rule); DELETE: clear. */
  function handleAdmin(method: string, body: unknown): { status: number; body: unknown } {
    const where = `${method} /baton-sim/faults`;
    switch (method) {
      case 'GET':
        break;
      case 'PUT': {
        const { rules: input, seed } = unwrap(body, where);
        live = toLive(input, where);
        if (seed !== undefined) random = seededRandom(seed);
        break;
      }
      case 'POST':
        live = [...live, ...toLive(unwrap(body, where).rules, where)];
        break;
      case 'DELETE':
        live = [];
        break;
      default:
        return { status: 405, body: { error: 'SIM_FAULT_ADMIN_METHOD', message: `${method} is not supported on /baton-sim/faults (use GET, PUT, POST or DELETE)` } };
    }
    return { status: 200, body: { rules: state() } };
  }
  return injector;
}

function unwrap(body: unknown, where: string): { rules: unknown; seed?: number } {
  if (Array.isArray(body)) return { rules: body };
  if (typeof body !== 'object' || body === null) {
    throw new FaultRuleError(`${where} expects a JSON body {"rules": [...]} (or one rule object)`, { where, problems: ['body: expected an object'] });
  }
  const record = body as Record<string, unknown>;
  if (!('rules' in record)) return { rules: [record] };
  const seed = record.seed;
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed))) {
    throw new FaultRuleError(`${where}: seed must be an integer`, { where, problems: ['seed: expected an integer'] });
  }
  return seed === undefined ? { rules: record.rules } : { rules: record.rules, seed };
}
