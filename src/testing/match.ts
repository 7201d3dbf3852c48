/**
 * Partial matching of a live object against an expected one, as kuttl asserts do: every field the
 * expectation names must have the expected value; fields it does not name are ignored. Arrays match
 * element by element (the live array may be longer). Returns the mismatches as readable lines.
 */
import { isRecord } from '../kube/object.js';

export function mismatches(expected: unknown, actual: unknown, path = ''): string[] {
  if (isRecord(expected)) {
    if (!isRecord(actual)) return [`${path || '.'}: expected an object, got ${show(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => mismatches(v, actual[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected a list, got ${show(actual)}`];
    if (actual.length < expected.length) return [`${path}: expected at least ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((v, i) => mismatches(v, actual[i], `${path}[${i}]`));
  }
  return expected === actual ? [] : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}

function show(v: unknown): string {
  return v === undefined ? 'nothing' : JSON.stringify(v);
}
