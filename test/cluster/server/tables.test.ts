import { describe, expect, it } from 'vitest';
import { humanDuration } from '../../../src/cluster/server/duration.js';
import { evalJsonPath } from '../../../src/cluster/server/jsonpath.js';
import { toTable } from '../../../src/cluster/server/tables.js';
import { builtinTypes } from '../../../src/cluster/store/builtins.js';
import type { ResourceType } from '../../../src/cluster/store/types.js';
import type { KubeObject } from '../../../src/kube/object.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const created = '2026-01-01T11:55:00Z';
const typeOf = (group: string, resource: string): ResourceType => builtinTypes().find((t) => t.group === group && t.resource === resource)!;
const obj = (kind: string, rest: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name: 'x', namespace: 'ns', creationTimestamp: created }, ...rest });

interface Table { columnDefinitions: { name: string }[]; rows: { cells: unknown[]; object?: { kind: string } }[] }

describe('Tables for kubectl get', () => {
  it.each([
    ['pods', '', 'pods', obj('Pod', {
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: { phase: 'Running', containerStatuses: [{ ready: true, restartCount: 2 }, { ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
    }), ['Name', 'Ready', 'Status', 'Restarts', 'Age'], ['x', '1/2', 'CrashLoopBackOff', '3', '5m']],
    ['deployments', 'apps', 'deployments', obj('Deployment', { spec: { replicas: 3 }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } }),
      ['Name', 'Ready', 'Up-to-date', 'Available', 'Age'], ['x', '2/3', 3, 2, '5m']],
    ['statefulsets', 'apps', 'statefulsets', obj('StatefulSet', { spec: { replicas: 3 }, status: { readyReplicas: 1 } }), ['Name', 'Ready', 'Age'], ['x', '1/3', '5m']],
    ['daemonsets', 'apps', 'daemonsets', obj('DaemonSet', { status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 } }),
      ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age'], ['x', 3, 3, 2, 3, 2, '<none>', '5m']],
    ['replicasets', 'apps', 'replicasets', obj('ReplicaSet', { spec: { replicas: 2 }, status: { replicas: 2, readyReplicas: 1 } }), ['Name', 'Desired', 'Current', 'Ready', 'Age'], ['x', 2, 2, 1, '5m']],
    ['jobs', 'batch', 'jobs', obj('Job', { spec: { completions: 1 }, status: { succeeded: 1, startTime: '2026-01-01T11:56:00Z', completionTime: '2026-01-01T11:56:30Z', conditions: [{ type: 'Complete', status: 'True' }] } }),
      ['Name', 'Status', 'Completions', 'Duration', 'Age'], ['x', 'Complete', '1/1', '30s', '5m']],
    ['cronjobs', 'batch', 'cronjobs', obj('CronJob', { spec: { schedule: '0 3 * * *' } }), ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age'], ['x', '0 3 * * *', '<none>', false, 0, '<none>', '5m']],
    ['services', '', 'services', obj('Service', { spec: { type: 'NodePort', clusterIP: '10.0.0.7', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] } }),
      ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age'], ['x', 'NodePort', '10.0.0.7', '<none>', '80:30080/TCP', '5m']],
    ['persistentvolumeclaims', '', 'persistentvolumeclaims', obj('PersistentVolumeClaim', { spec: { volumeName: 'pv-1', storageClassName: 'standard' }, status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }),
      ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'Age'], ['x', 'Bound', 'pv-1', '1Gi', 'RWO', 'standard', '5m']],
    ['namespaces', '', 'namespaces', obj('Namespace', { status: { phase: 'Active' } }), ['Name', 'Status', 'Age'], ['x', 'Active', '5m']],
    ['configmaps', '', 'configmaps', obj('ConfigMap', { data: { a: '1', b: '2' } }), ['Name', 'Data', 'Age'], ['x', 2, '5m']],
    ['secrets', '', 'secrets', obj('Secret', { type: 'Opaque', data: { a: 'MQ==' } }), ['Name', 'Type', 'Data', 'Age'], ['x', 'Opaque', 1, '5m']],
    ['CRDs', 'apiextensions.k8s.io', 'customresourcedefinitions', obj('CustomResourceDefinition', {}), ['Name', 'Created At'], ['x', created]],
    ['leases', 'coordination.k8s.io', 'leases', obj('Lease', { spec: { holderIdentity: 'agent-1' } }), ['Name', 'Holder', 'Age'], ['x', 'agent-1', '5m']],
    ['nodes', '', 'nodes', obj('Node', { status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.33.0' } } }),
      ['Name', 'Status', 'Roles', 'Age', 'Version'], ['x', 'Ready', '<none>', '5m', 'v1.33.0']],
    ['events (name last, only with -o wide)', '', 'events', obj('Event', { type: 'Normal', reason: 'Scheduled', involvedObject: { kind: 'Pod', name: 'p' }, message: 'assigned', lastTimestamp: '2026-01-01T11:59:30Z' }),
      ['Last Seen', 'Type', 'Reason', 'Object', 'Message'], ['30s', 'Normal', 'Scheduled', 'pod/p', 'assigned', 'x']],
    ['service accounts', '', 'serviceaccounts', obj('ServiceAccount', {}), ['Name', 'Secrets', 'Age'], ['x', 0, '5m']],
  ])('GIVEN %s THEN the columns and cells are the real server\'s', (_n, group, resource, o, columns, cells) => {
    const table = toTable(typeOf(group, resource), [o], { include: 'Metadata', now: NOW }) as unknown as Table;
    expect(table.columnDefinitions.filter((c) => !('priority' in c) || (c as { priority: number }).priority === 0).map((c) => c.name)).toEqual(columns);
    expect(table.rows[0]?.cells.slice(0, cells.length)).toEqual(cells);
    expect(table.rows[0]?.object?.kind).toBe('PartialObjectMetadata');
  });

  it('uses a CRD\'s additionalPrinterColumns, with dates as ages and filters in JSONPath', () => {
    const type: ResourceType = {
      ...typeOf('apps', 'deployments'), group: 'example.com', resource: 'widgets', kind: 'Widget',
      printerColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    };
    const o = obj('Widget', { spec: { size: 3 }, status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] } });
    const table = toTable(type, [o], { include: 'None', now: NOW }) as unknown as Table;
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Size', 'Ready', 'Age']);
    expect(table.rows[0]).toEqual({ cells: ['x', 3, 'True', '5m'] });
  });

  it('sends column definitions only once in watch events', () => {
    const t = toTable(typeOf('', 'configmaps'), [obj('ConfigMap', {})], { include: 'Metadata', noHeaders: true, now: NOW }) as unknown as Table;
    expect(t.columnDefinitions).toEqual([]);
  });

  it.each([
    [45_000, '45s'], [119_000, '119s'], [330_000, '5m30s'], [45 * 60_000, '45m'], [(3 * 60 + 20) * 60_000, '3h20m'],
    [20 * 3600_000, '20h'], [(2 * 24 + 4) * 3600_000, '2d4h'], [30 * 24 * 3600_000, '30d'], [-5000, '<invalid>'],
  ])('formats %i ms as %s like duration.HumanDuration', (ms, expected) => {
    expect(humanDuration(ms)).toBe(expected);
  });

  it.each([
    ['.spec.items[1].name', ['b']],
    ['.spec.items[*].name', ['a', 'b']],
    ['{.spec.items[?(@.name=="b")].v}', [2]],
    ['.spec.missing', []],
  ])('evaluates the JSONPath %s', (path, expected) => {
    expect(evalJsonPath({ spec: { items: [{ name: 'a', v: 1 }, { name: 'b', v: 2 }] } }, path)).toEqual(expected);
  });
});
