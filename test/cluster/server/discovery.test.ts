import { describe, expect, it } from 'vitest';
import { parseAccept, wantsAggregated, objectView } from '../../../src/cluster/server/accept.js';
import { aggregatedDiscovery, apiGroupList, apiResourceList, compareKubeVersions } from '../../../src/cluster/server/discovery.js';
import { openApiV2Protobuf, openApiV3Document, openApiV3Index } from '../../../src/cluster/server/openapi.js';
import protobuf from 'protobufjs';
import { builtinTypes } from '../../../src/cluster/store/builtins.js';
import type { ResourceType } from '../../../src/cluster/store/types.js';

const widget: ResourceType = {
  group: 'example.com', version: 'v1alpha1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', singular: 'widget',
  namespaced: true, shortNames: ['wd'], categories: ['all'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  subresources: { status: true }, storage: true, schema: {}, generation: true,
};
const types = [...builtinTypes(), widget];

/** The length-delimited fields of one message, in order, as [field number, bytes]. */
function readFields(buf: Uint8Array): { field: number; wire: string; value: Uint8Array }[] {
  const r = protobuf.Reader.create(buf);
  const out: { field: number; wire: string; value: Uint8Array }[] = [];
  while (r.pos < r.len) {
    const tag = r.uint32();
    if ((tag & 7) === 2) out.push({ field: tag >>> 3, wire: 'bytes', value: r.bytes() });
    else r.skipType(tag & 7);
  }
  return out;
}

describe('content negotiation', () => {
  it.each([
    ['kubectl 1.30+', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', 'v2'],
    ['kubectl 1.27-1.29', 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', 'v2beta1'],
    ['a client preferring plain JSON', 'application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', undefined],
    ['the Python client', 'application/json', undefined],
  ])('GIVEN the Accept header of %s THEN aggregated discovery is %s', (_n, accept, expected) => {
    expect(wantsAggregated(parseAccept(accept))).toBe(expected);
  });

  it.each([
    ['application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json', 'table'],
    ['application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json', 'metadata'],
    ['application/vnd.kubernetes.protobuf,application/json', 'object'],
    ['', 'object'],
  ])('GIVEN Accept %j THEN objects are served as %s', (accept, expected) => {
    expect(objectView(parseAccept(accept))).toBe(expected);
  });
});

describe('discovery documents', () => {
  it('lists named groups with their preferred version, and the core group only under /api', () => {
    const list = apiGroupList(types) as { groups: { name: string; preferredVersion: { version: string } }[] };
    expect(list.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['apps', 'batch', 'apiextensions.k8s.io', 'example.com']));
    expect(list.groups.find((g) => g.name === '')).toBeUndefined();
    expect(list.groups.find((g) => g.name === 'example.com')?.preferredVersion.version).toBe('v1alpha1');
  });

  it('describes resources with kinds, verbs, short names, categories, scope and subresources', () => {
    const list = apiResourceList(types, 'apps', 'v1') as { resources: Record<string, unknown>[] };
    expect(list.resources).toContainEqual(expect.objectContaining({ name: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'] }));
    expect(list.resources).toContainEqual(expect.objectContaining({ name: 'deployments/scale', group: 'autoscaling', version: 'v1', kind: 'Scale' }));
    expect(apiResourceList(types, 'apps', 'v9')).toBeUndefined();
  });

  it('serves aggregated discovery with responseKind, scope and subresources', () => {
    const doc = aggregatedDiscovery(types, 'groups', 'v2beta1') as { apiVersion: string; items: { metadata: { name: string }; versions: { resources: Record<string, unknown>[] }[] }[] };
    expect(doc.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    const ex = doc.items.find((i) => i.metadata.name === 'example.com');
    expect(ex?.versions[0]?.resources[0]).toMatchObject({
      resource: 'widgets', scope: 'Namespaced', singularResource: 'widget', shortNames: ['wd'],
      responseKind: { group: 'example.com', version: 'v1alpha1', kind: 'Widget' }, subresources: [{ subresource: 'status' }],
    });
    const core = aggregatedDiscovery(types, 'core', 'v2') as { items: { versions: { resources: { resource: string; scope: string }[] }[] }[] };
    expect(core.items).toHaveLength(1);
    expect(core.items[0]?.versions[0]?.resources).toContainEqual(expect.objectContaining({ resource: 'namespaces', scope: 'Cluster' }));
  });

  it.each([
    [['v1beta1', 'v1', 'v2alpha1', 'v1beta2', 'v2'], ['v2', 'v1', 'v1beta2', 'v1beta1', 'v2alpha1']],
  ])('orders versions by Kubernetes priority: %j -> %j', (input, expected) => {
    expect([...input].sort(compareKubeVersions)).toEqual(expected);
  });
});

describe('OpenAPI for kubectl field validation', () => {
  it('indexes every group version with a hash that changes with the document', () => {
    const before = openApiV3Index(types) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(before.paths['apis/apps/v1']?.serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
    const after = openApiV3Index([...types, { ...widget, resource: 'gadgets', kind: 'Gadget' }]) as typeof before;
    expect(after.paths['apis/example.com/v1alpha1']).not.toEqual(before.paths['apis/example.com/v1alpha1']);
  });

  it('declares fieldValidation and the group-version-kind on each patch operation (v3)', () => {
    const doc = openApiV3Document(types, 'apps', 'v1') as { paths: Record<string, { patch: { parameters: { name: string }[]; 'x-kubernetes-group-version-kind': unknown } }> };
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.patch;
    expect(patch?.parameters.map((p) => p.name)).toContain('fieldValidation');
    expect(patch?.['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
  });

  it('encodes the same facts in the gnostic v2 protobuf kubectl 1.27/1.28 read', () => {
    // Walk Document.paths(8).path(2) -> NamedPathItem{name(1), value(2).patch(8)} as kubectl's query_param_verifier does.
    const utf8 = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
    const bytes = (fs: ReturnType<typeof readFields>, n: number): Uint8Array[] => fs.filter((f) => f.field === n && f.wire === 'bytes').map((f) => f.value);
    const doc = readFields(openApiV2Protobuf(types));
    expect(utf8(bytes(doc, 1)[0]!)).toBe('2.0');
    const named = bytes(readFields(bytes(doc, 8)[0]!), 2).map((b) => readFields(b));
    const item = named.find((n) => utf8(bytes(n, 1)[0]!) === '/apis/apps/v1/namespaces/{namespace}/deployments/{name}');
    const op = readFields(bytes(readFields(bytes(item!, 2)[0]!), 8)[0]!);
    const params = bytes(op, 8).map((pi) => readFields(bytes(readFields(bytes(readFields(bytes(readFields(pi), 1)[0]!), 2)[0]!), 3)[0]!));
    expect(params.map((q) => utf8(bytes(q, 4)[0]!))).toContain('fieldValidation');
    const exts = bytes(op, 13).map((e) => readFields(e));
    const gvk = exts.find((e) => utf8(bytes(e, 1)[0]!) === 'x-kubernetes-group-version-kind');
    expect(utf8(bytes(readFields(bytes(gvk!, 2)[0]!), 2)[0]!)).toBe('group: "apps"\nkind: Deployment\nversion: v1\n');
  });
});

describe('OpenAPI v3 schemas', () => {
  it('generates the built-in kinds\' schemas from the Kubernetes schemas, with their GVK, and uses a CRD\'s own schema', () => {
    const apps = openApiV3Document(types, 'apps', 'v1') as { components: { schemas: Record<string, Record<string, unknown>> } };
    const deploy = apps.components.schemas['io.k8s.api.apps.v1.Deployment'];
    expect(deploy?.['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(apps.components.schemas['io.k8s.api.apps.v1.DeploymentSpec']?.properties).toMatchObject({ replicas: { type: 'integer', format: 'int32' }, template: { $ref: '#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec' } });
    // Inline members sit beside their siblings: a volume's configMap.
    expect(Object.keys(apps.components.schemas['io.k8s.api.core.v1.Volume']?.properties as object)).toEqual(expect.arrayContaining(['name', 'configMap', 'persistentVolumeClaim']));
    const crd = openApiV3Document([{ ...widget, schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } }], 'example.com', 'v1alpha1') as { components: { schemas: Record<string, Record<string, unknown>> } };
    expect(crd.components.schemas['com.example.v1alpha1.Widget']).toMatchObject({ properties: { spec: { properties: { size: { type: 'integer' } } } }, 'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Widget', version: 'v1alpha1' }] });
  });
});
