/**
 * API errors as the real API server words them: the HTTP layer serialises `err.status` as the body
 * and `err.httpCode` as the response code. Messages are copied from kube-apiserver because kubectl
 * prints them verbatim and users (and scripts) recognise them.
 */
import { BatonError } from '../../errors.js';
import type { KubeStatus } from '../../kube/errors.js';
import { qualifiedResource, type ResourceType } from './types.js';

export interface Cause {
  type: string;
  message: string;
  field: string;
}

type Details = NonNullable<KubeStatus['details']>;

export class ApiError extends BatonError {
  readonly status: KubeStatus;
  readonly httpCode: number;

  constructor(httpCode: number, reason: string, message: string, details?: Details) {
    super(`KUBE_${reason.toUpperCase()}`, message, { httpCode, reason, ...(details ? { details } : {}) });
    this.httpCode = httpCode;
    this.status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code: httpCode };
    if (details) this.status.details = details;
  }

  get reason(): string {
    return this.status.reason ?? 'Unknown';
  }
}

type TypeLike = Pick<ResourceType, 'group' | 'resource'>;

function details(type: TypeLike, name: string): Details {
  const d: Details = { name, kind: type.resource };
  if (type.group !== '') d.group = type.group;
  return d;
}

export function notFound(type: TypeLike, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(type)} "${name}" not found`, details(type, name));
}

export function alreadyExists(type: TypeLike, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(type)} "${name}" already exists`, details(type, name));
}

export function conflict(type: TypeLike, name: string, why: string, causes?: Cause[]): ApiError {
  const d = details(type, name);
  if (causes) d.causes = causes;
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": ${why}`, d);
}

export const STALE_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function staleConflict(type: TypeLike, name: string): ApiError {
  return conflict(type, name, STALE_MESSAGE);
}

/** 422 with one cause per field: `Deployment.apps "web" is invalid: spec.selector: Required value`. */
export function invalid(type: Pick<ResourceType, 'group' | 'kind'>, name: string, causes: Cause[]): ApiError {
  const kind = type.group === '' ? type.kind : `${type.kind}.${type.group}`;
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = list.length === 1 ? list[0] ?? '' : `[${list.join(', ')}]`;
  const d: Details = { name, kind: type.kind, causes };
  if (type.group !== '') d.group = type.group;
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${summary}`, d);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(message: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function forbidden(type: TypeLike, name: string, why: string): ApiError {
  return new ApiError(403, 'Forbidden', `${qualifiedResource(type)} "${name}" is forbidden: ${why}`, details(type, name));
}

export function unsupportedMediaType(message: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', message);
}

/** Cause helpers, worded like k8s.io/apimachinery/pkg/util/validation/field. */
export const cause = {
  required: (field: string): Cause => ({ type: 'FieldValueRequired', message: 'Required value', field }),
  invalid: (field: string, value: unknown, detail: string): Cause => ({
    type: 'FieldValueInvalid',
    message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
    field,
  }),
  unsupported: (field: string, value: unknown, allowed: readonly unknown[]): Cause => ({
    type: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
    field,
  }),
  forbidden: (field: string, detail: string): Cause => ({ type: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field }),
  typeInvalid: (field: string, value: unknown, expected: string): Cause => ({
    type: 'FieldValueTypeInvalid',
    message: `Invalid value: ${JSON.stringify(value)}: must be of type ${expected}`,
    field,
  }),
  duplicate: (field: string, value: unknown): Cause => ({ type: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(value)}`, field }),
  immutable: (field: string, value: unknown): Cause => ({
    type: 'FieldValueInvalid',
    message: `Invalid value: ${JSON.stringify(value)}: field is immutable`,
    field,
  }),
};
