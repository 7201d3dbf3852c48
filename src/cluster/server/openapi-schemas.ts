/**
 * OpenAPI v3 component schemas for `kubectl explain`. Built-in kinds: generated from the published
 * Kubernetes schemas the server already decodes and validates with (proto/kube-proto.json): every
 * field with its type, lists, maps, inline members and the JSON forms of Time, Quantity and
 * IntOrString; the descriptors carry no descriptions, so fields show none. Custom resources: each
 * served CRD version's own openAPIV3Schema. Every kind's schema has `x-kubernetes-group-version-kind`.
 */
import protobuf from 'protobufjs';
import type { ResourceType } from '../store/types.js';
import { isInline, kindType } from './protobody.js';

type Schema = Record<string, unknown>;
const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';

/** `.k8s.io.api.apps.v1.Deployment` -> `io.k8s.api.apps.v1.Deployment`, the real schema names. */
export function schemaName(fullName: string): string {
  return fullName.replace(/^\.k8s\.io\./, 'io.k8s.');
}

const SPECIAL: Record<string, Schema> = {
  [`${META}.Time`]: { type: 'string', format: 'date-time' },
  [`${META}.MicroTime`]: { type: 'string', format: 'date-time' },
  [`${META}.Duration`]: { type: 'string' },
  [`${META}.FieldsV1`]: { type: 'object' },
  [`${META}.Verbs`]: { type: 'array', items: { type: 'string' } },
  '.k8s.io.apimachinery.pkg.runtime.RawExtension': { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  '.k8s.io.apimachinery.pkg.api.resource.Quantity': { 'x-kubernetes-int-or-string': true },
  '.k8s.io.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true },
  '.k8s.io.api.authentication.v1.ExtraValue': { type: 'array', items: { type: 'string' } },
  '.k8s.io.api.authorization.v1.ExtraValue': { type: 'array', items: { type: 'string' } },
};

const SCALARS: Record<string, Schema> = {
  string: { type: 'string' },
  bool: { type: 'boolean' },
  bytes: { type: 'string', format: 'byte' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  uint32: { type: 'integer', format: 'int32' },
  double: { type: 'number', format: 'double' },
  float: { type: 'number', format: 'float' },
};

class SchemaBuilder {
  readonly schemas: Record<string, Schema> = {};

  ref(t: protobuf.Type): Schema {
    const special = SPECIAL[t.fullName];
    if (special) return special;
    const name = schemaName(t.fullName);
    if (!(name in this.schemas)) {
      this.schemas[name] = {};
      this.schemas[name] = this.object(t);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  private fieldSchema(field: protobuf.Field): Schema {
    field.resolve();
    const t = field.resolvedType;
    const item = t instanceof protobuf.Type ? this.ref(t) : (SCALARS[field.type] ?? { type: 'string' });
    if (field.map) return { type: 'object', additionalProperties: item };
    if (field.repeated) return { type: 'array', items: item };
    return item;
  }

  private properties(t: protobuf.Type): Record<string, Schema> {
    const out: Record<string, Schema> = {};
    for (const field of t.fieldsArray) {
      field.resolve();
      if (isInline(t, field) && field.resolvedType instanceof protobuf.Type) Object.assign(out, this.properties(field.resolvedType));
      else out[field.name] = this.fieldSchema(field);
    }
    return out;
  }

  object(t: protobuf.Type): Schema {
    return { type: 'object', properties: this.properties(t) };
  }
}

/** The component schemas of one group version's kinds (and everything they use). */
export function componentSchemas(served: readonly ResourceType[]): Record<string, Schema> {
  const builder = new SchemaBuilder();
  const out: Record<string, Schema> = {};
  for (const type of served) {
    const gvk = [{ group: type.group, kind: type.kind, version: type.version }];
    const apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
    if (type.schema !== undefined) {
      out[`${type.group.split('.').reverse().join('.')}.${type.version}.${type.kind}`] = { ...type.schema, 'x-kubernetes-group-version-kind': gvk };
      continue;
    }
    const message = kindType(apiVersion, type.kind);
    if (!message) continue;
    builder.ref(message);
    const name = schemaName(message.fullName);
    const body = builder.schemas[name] ?? {};
    const properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, ...((body.properties as Record<string, Schema> | undefined) ?? {}) };
    builder.schemas[name] = { ...body, properties, 'x-kubernetes-group-version-kind': gvk };
  }
  return { ...builder.schemas, ...out };
}
