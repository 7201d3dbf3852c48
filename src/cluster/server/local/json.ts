/**
 * The copy an in-process client makes of everything crossing to or from the store: a deep copy with
 * the semantics of `JSON.parse(JSON.stringify(value))`, in one pass and without the text. What an HTTP
 * client sends or receives is JSON, so a property set to `undefined` vanishes (in a list it becomes
 * null), `toJSON` is honoured (a Date becomes its ISO string), and a non-finite number becomes null.
 * Both sides then hold objects of their own: a controller that changes what it got never changes
 * the store, and the store never keeps a reference into a caller's object.
 */
export function jsonCopy<T>(value: T): T {
  return copy(value, '') as T;
}

interface WithToJson {
  toJSON(key: string): unknown;
}

function hasToJson(value: object): value is WithToJson {
  return typeof (value as Partial<WithToJson>).toJSON === 'function';
}

function copy(value: unknown, key: string): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      break;
    case 'bigint':
      // JSON.stringify's own words: the HTTP client fails the same way before sending.
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'undefined':
    case 'function':
    case 'symbol':
      // Left out of objects (and null in lists).
      return undefined;
  }
  if (value === null) return null;
  if (hasToJson(value)) return copy(value.toJSON(key), key);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], String(i)) ?? null;
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = copy((value as Record<string, unknown>)[k], k);
    if (v === undefined) continue;
    // A JSON key named __proto__ is data: define it, never let assignment change the prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}
