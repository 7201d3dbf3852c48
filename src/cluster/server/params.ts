/**
 * Query parameters of resource requests, parsed and checked the way kube-apiserver does, into the
 * store's option objects. Bad values are 400 BadRequest naming the parameter.
 */
import { badRequest } from '../store/errors.js';
import type { DeleteOptions, FieldValidation, ListOptions, WatchOptions, WriteOptions } from '../store/types.js';
import { parseBool } from './route.js';

export function boolParam(q: URLSearchParams, name: string): boolean {
  const raw = q.get(name);
  const value = parseBool(raw);
  if (value === undefined && raw !== null) throw badRequest(`invalid boolean value for query parameter ${name}: "${raw}"`);
  return value ?? false;
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid value for query parameter ${name}: "${raw}" (expected a non-negative integer)`);
  return n;
}

function set<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined | null): void {
  if (value !== undefined && value !== null) target[key] = value;
}

export function listOptions(q: URLSearchParams): ListOptions {
  const opts: ListOptions = {};
  set(opts, 'labelSelector', q.get('labelSelector'));
  set(opts, 'fieldSelector', q.get('fieldSelector'));
  set(opts, 'limit', intParam(q, 'limit'));
  set(opts, 'continue', q.get('continue') || undefined);
  set(opts, 'resourceVersion', q.get('resourceVersion'));
  return opts;
}

export function watchOptions(q: URLSearchParams): WatchOptions {
  const opts: WatchOptions = {};
  set(opts, 'labelSelector', q.get('labelSelector'));
  set(opts, 'fieldSelector', q.get('fieldSelector'));
  set(opts, 'resourceVersion', q.get('resourceVersion'));
  opts.allowWatchBookmarks = boolParam(q, 'allowWatchBookmarks');
  opts.sendInitialEvents = boolParam(q, 'sendInitialEvents');
  return opts;
}

/** `timeoutSeconds` for watches; absent means the server's default. */
export function watchTimeoutMs(q: URLSearchParams, defaultMs: number): number {
  const s = intParam(q, 'timeoutSeconds');
  return s === undefined || s === 0 ? defaultMs : s * 1000;
}

function dryRun(q: URLSearchParams): boolean {
  const values = q.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  return values.length > 0;
}

const VALIDATIONS: readonly FieldValidation[] = ['Strict', 'Warn', 'Ignore'];

export function writeOptions(q: URLSearchParams, defaultManager: string, onWarning: (m: string) => void): WriteOptions {
  const opts: WriteOptions = { onWarning };
  if (dryRun(q)) opts.dryRun = true;
  const manager = q.get('fieldManager');
  if (manager !== null && manager.length > 128) throw badRequest('fieldManager: Too long: may not be more than 128 bytes');
  opts.fieldManager = manager ?? defaultManager;
  if (q.has('force')) opts.force = boolParam(q, 'force');
  const validation = q.get('fieldValidation');
  if (validation !== null && validation !== '') {
    if (!VALIDATIONS.includes(validation as FieldValidation)) {
      throw badRequest(`fieldValidation: Unsupported value: "${validation}": supported values: "Ignore", "Strict", "Warn"`);
    }
    opts.fieldValidation = validation as FieldValidation;
  }
  return opts;
}

const POLICIES = ['Foreground', 'Background', 'Orphan'] as const;

/** DeleteOptions from the body (kubectl sends one) and the query (client-node and curl use it). */
export function deleteOptions(q: URLSearchParams, body: unknown): DeleteOptions {
  const opts: DeleteOptions = {};
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const policy = (b.propagationPolicy as string | undefined) ?? q.get('propagationPolicy') ?? undefined;
  if (policy !== undefined) {
    if (!(POLICIES as readonly string[]).includes(policy)) throw badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
    opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'] & string;
  } else if (b.orphanDependents === true || q.get('orphanDependents') === 'true') {
    opts.propagationPolicy = 'Orphan';
  }
  const grace = typeof b.gracePeriodSeconds === 'number' ? b.gracePeriodSeconds : intParam(q, 'gracePeriodSeconds');
  set(opts, 'gracePeriodSeconds', grace);
  const pre = b.preconditions;
  if (typeof pre === 'object' && pre !== null) {
    const p = pre as Record<string, unknown>;
    opts.preconditions = {};
    if (typeof p.uid === 'string') opts.preconditions.uid = p.uid;
    if (typeof p.resourceVersion === 'string') opts.preconditions.resourceVersion = p.resourceVersion;
  }
  const bodyDry = Array.isArray(b.dryRun) && b.dryRun.includes('All');
  if (dryRun(q) || bodyDry) opts.dryRun = true;
  return opts;
}
