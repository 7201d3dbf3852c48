/**
 * JSON patch (RFC 6902): add, remove, replace, move, copy, test. Errors are worded like the
 * evanphx/json-patch library the API server uses, which kubectl prints.
 */
import { isRecord } from '../../../kube/object.js';
import { ApiError, badRequest } from '../errors.js';
import { clone, deepEqual } from '../util.js';

interface Op {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function unprocessable(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw badRequest(`invalid JSON pointer: "${path}"`);
  return path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, unknown> | unknown[];

/** The parent container of a pointer and the last token. */
function parentOf(doc: unknown, tokens: string[], path: string): { parent: Container; key: string } {
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isRecord(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw unprocessable(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isRecord(cur)) throw unprocessable(`doc is missing path: "${path}": missing value`);
  return { parent: cur, key: tokens[tokens.length - 1] ?? '' };
}

function index(arr: unknown[], key: string, path: string, forAdd: boolean): number {
  if (forAdd && key === '-') return arr.length;
  const i = Number(key);
  if (!/^\d+$/.test(key) || i > arr.length || (!forAdd && i === arr.length)) throw unprocessable(`Unable to access invalid index: ${key}: invalid index referenced: "${path}"`);
  return i;
}

function read(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isRecord(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw unprocessable(`doc is missing path: "${path}": missing value`);
  }
  return cur;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(index(parent, key, path, true), 0, value);
  else parent[key] = value;
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(index(parent, key, path, false), 1);
  else {
    if (!(key in parent)) throw unprocessable(`Unable to remove nonexistent key: ${key}: missing value`);
    delete parent[key];
  }
  return doc;
}

function replace(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent[index(parent, key, path, false)] = value;
  else {
    if (!(key in parent)) throw unprocessable(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    parent[key] = value;
  }
  return doc;
}

function toOps(body: unknown): Op[] {
  if (!Array.isArray(body)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  return body.map((raw, i) => {
    if (!isRecord(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw badRequest(`json patch operation ${i}: expected {"op": ..., "path": ...}`);
    }
    return raw as unknown as Op;
  });
}

export function applyJsonPatch(target: unknown, body: unknown): unknown {
  let doc = clone(target);
  for (const op of toOps(body)) {
    switch (op.op) {
      case 'add':
        doc = add(doc, op.path, clone(op.value));
        break;
      case 'remove':
        doc = remove(doc, op.path);
        break;
      case 'replace':
        doc = replace(doc, op.path, clone(op.value));
        break;
      case 'move': {
        const v = read(doc, op.from ?? '');
        doc = add(remove(doc, op.from ?? ''), op.path, v);
        break;
      }
      case 'copy':
        doc = add(doc, op.path, clone(read(doc, op.from ?? '')));
        break;
      case 'test':
        if (!deepEqual(read(doc, op.path), op.value)) throw unprocessable(`testing value ${op.path} failed: test failed`);
        break;
      default:
        throw badRequest(`Unexpected kind: ${op.op}`);
    }
  }
  return doc;
}
