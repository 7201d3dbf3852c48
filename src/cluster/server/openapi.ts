/**
 * OpenAPI, just enough for kubectl: it reads OpenAPI to learn whether the server takes the
 * `fieldValidation` query parameter for a kind (no OpenAPI at all fails `apply`). 1.29+ read the v3
 * index and one group-version document; 1.27/1.28 read v2 as a gnostic protobuf `openapi_v2.Document`.
 * The v3 documents carry component schemas (openapi-schemas.ts) for `kubectl explain`; the patch
 * operations declare no request content types, so kubectl still builds strategic merge patches from
 * its built-in type knowledge (and JSON merge patches for custom resources), as its fallback does.
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from '../store/types.js';
import { groupVersions } from './discovery.js';
import { componentSchemas } from './openapi-schemas.js';
import protobuf from 'protobufjs';

const SERVER_VERSION = 'v1.33.0';
const WRITE_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force'];

/** `api/v1` or `apis/apps/v1`: the key of a group version in the v3 index. */
export function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

interface ItemPath { path: string; type: ResourceType }

function itemPaths(types: readonly ResourceType[]): ItemPath[] {
  return types.map((type) => ({
    type,
    path: `/${gvPath(type.group, type.version)}/${type.namespaced ? 'namespaces/{namespace}/' : ''}${type.resource}/{name}`,
  }));
}

function gvk(t: ResourceType): { group: string; version: string; kind: string } {
  return { group: t.group, version: t.version, kind: t.kind };
}

export function openApiV3Document(types: readonly ResourceType[], group: string, version: string): Record<string, unknown> | undefined {
  const served = types.filter((t) => t.group === group && t.version === version);
  if (served.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const { path, type } of itemPaths(served)) {
    const op = (action: string, params: string[]): Record<string, unknown> => ({
      operationId: `${action}${type.kind}`,
      parameters: params.map((name) => ({ name, in: 'query', schema: { type: 'string', uniqueItems: true } })),
      responses: { '200': { description: 'OK' } },
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk(type),
    });
    paths[path] = { get: op('get', []), put: op('put', WRITE_PARAMS), patch: op('patch', WRITE_PARAMS), delete: op('delete', ['dryRun']) };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: SERVER_VERSION }, paths, components: { schemas: componentSchemas(served) } };
}

/** `/openapi/v3`: every served group version with a URL whose hash changes when its document does. */
export function openApiV3Index(types: readonly ResourceType[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [group, versions] of groupVersions(types)) {
    for (const version of versions) {
      const doc = openApiV3Document(types, group, version);
      const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
      paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
    }
  }
  return { paths };
}

/** Swagger 2.0 as JSON, for clients that ask for it. */
export function openApiV2Json(types: readonly ResourceType[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const { path, type } of itemPaths(types)) {
    paths[path] = {
      patch: {
        parameters: WRITE_PARAMS.map((name) => ({ name, in: 'query', type: 'string', uniqueItems: true })),
        responses: { '200': { description: 'OK' } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk(type),
      },
    };
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: SERVER_VERSION }, paths, definitions: {} };
}

/**
 * The same as a gnostic `openapi_v2.Document` protobuf (github.com/google/gnostic-models openapiv2/
 * OpenAPIv2.proto): Document{swagger=1, info=2, paths=8}, Info{title=1, version=2},
 * Paths{path=2: NamedPathItem{name=1, value=2: PathItem{patch=8: Operation}}},
 * Operation{operation_id=5, parameters=8, responses=9, vendor_extension=13},
 * ParametersItem{parameter=1: Parameter{non_body_parameter=2: NonBodyParameter{query_parameter_sub_schema=3:
 * QueryParameterSubSchema{in=2, name=4, type=6}}}}, Responses{response_code=1: NamedResponseValue{name=1,
 * value=2: ResponseValue{response=1: Response{description=1}}}}, NamedAny{name=1, value=2: Any{yaml=2}}.
 */
export function openApiV2Protobuf(types: readonly ResourceType[]): Uint8Array {
  const w = protobuf.Writer.create();
  const message = (field: number, build: () => void): void => {
    w.uint32((field << 3) | 2).fork();
    build();
    w.ldelim();
  };
  const string = (field: number, value: string): void => void w.uint32((field << 3) | 2).string(value);
  string(1, '2.0');
  message(2, () => {
    string(1, 'Kubernetes');
    string(2, SERVER_VERSION);
  });
  message(8, () => {
    for (const { path, type } of itemPaths(types)) {
      message(2, () => {
        string(1, path);
        message(2, () => message(8, () => {
          string(5, `patch${type.kind}`);
          for (const name of WRITE_PARAMS) {
            message(8, () => message(1, () => message(2, () => message(3, () => {
              string(2, 'query');
              string(4, name);
              string(6, 'string');
            }))));
          }
          message(9, () => message(1, () => {
            string(1, '200');
            message(2, () => message(1, () => string(1, 'OK')));
          }));
          const ext = (name: string, yaml: string): void => message(13, () => {
            string(1, name);
            message(2, () => string(2, yaml));
          });
          ext('x-kubernetes-action', 'patch\n');
          ext('x-kubernetes-group-version-kind', `group: ${JSON.stringify(type.group)}\nkind: ${type.kind}\nversion: ${type.version}\n`);
        }));
      });
    }
  });
  return w.finish();
}

export const OPENAPI_V2_PROTO_MEDIA_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

