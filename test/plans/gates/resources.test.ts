import { describe, expect, it } from 'vitest';
import { gateFor, type GateResult } from '../../../src/plans/gates/index.js';
import { ctx, obj } from './_fixtures.js';

const claim = (extra = '', status = '{ phase: Pending }'): string => `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data-zk-0, namespace: app${extra} }
spec: { storageClassName: local, volumeName: pv-1 }
status: ${status}
`;
const statefulSetConsumer = obj(`
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: zk, namespace: app }
spec: { volumeClaimTemplates: [{ metadata: { name: data } }] }
`);
const podConsumer = obj(`
apiVersion: v1
kind: Pod
metadata: { name: user, namespace: app }
spec: { volumes: [{ name: d, persistentVolumeClaim: { claimName: data-zk-0 } }] }
`);
const otherNamespace = obj(`
apiVersion: v1
kind: Pod
metadata: { name: user, namespace: elsewhere }
spec: { volumes: [{ name: d, persistentVolumeClaim: { claimName: data-zk-0 } }] }
`);
const wffc = obj('{ apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: { name: local }, volumeBindingMode: WaitForFirstConsumer }');
const selected = ', annotations: { volume.kubernetes.io/selected-node: node-1 }';

describe('PersistentVolumeClaim gate: Bound is done; a late-binding claim with its consumer in the batch does not deadlock', () => {
  it.each<[string, string, object[], GateResult]>([
    ['a bound claim', claim('', '{ phase: Bound }'), [], { state: 'done', message: 'bound to volume pv-1' }],
    ['a lost claim', claim('', '{ phase: Lost }'), [], { state: 'failed', reason: 'ClaimLost', message: 'claim lost its volume' }],
    ['a pending claim without a consumer in the batch', claim(), [], { state: 'waiting', message: 'claim Pending (storage class local)' }],
    ['a pending claim used by a pod in the batch', claim(), [podConsumer],
      { state: 'done', message: 'Pending until its consumer is scheduled (Pod user is in this batch)' }],
    ['a pending claim from a StatefulSet volumeClaimTemplate in the batch', claim(), [statefulSetConsumer],
      { state: 'done', message: 'Pending until its consumer is scheduled (StatefulSet zk is in this batch)' }],
    ['a consumer in another namespace does not count', claim(), [otherNamespace], { state: 'waiting', message: 'claim Pending (storage class local)' }],
    ['a node was selected and the class binds immediately: provisioning is under way', claim(selected), [podConsumer],
      { state: 'waiting', message: 'claim Pending (storage class local)' }],
    ['a WaitForFirstConsumer class in the batch, even with a node selected', claim(selected), [wffc, podConsumer],
      { state: 'done', message: 'Pending until its consumer is scheduled (Pod user is in this batch)' }],
  ])('GIVEN %s THEN the gate says so', (_name, yaml, batch, expected) => {
    expect(gateFor(obj(yaml), ctx({ batch: batch as never }))).toEqual(expected);
  });
});

describe('Service, Ingress, CRD and Namespace gates', () => {
  it.each<[string, string, GateResult]>([
    ['a ClusterIP service', '{ apiVersion: v1, kind: Service, metadata: { name: s }, spec: { type: ClusterIP } }', { state: 'done', message: 'ClusterIP service' }],
    ['a service with no type (ClusterIP)', '{ apiVersion: v1, kind: Service, metadata: { name: s }, spec: {} }', { state: 'done', message: 'ClusterIP service' }],
    ['a LoadBalancer service without an address', '{ apiVersion: v1, kind: Service, metadata: { name: s }, spec: { type: LoadBalancer }, status: { loadBalancer: {} } }',
      { state: 'waiting', message: 'waiting for a load balancer address' }],
    ['a LoadBalancer service with an address', '{ apiVersion: v1, kind: Service, metadata: { name: s }, spec: { type: LoadBalancer }, status: { loadBalancer: { ingress: [{ ip: 10.0.0.7 }] } } }',
      { state: 'done', message: 'load balancer at 10.0.0.7' }],
    ['an ingress without an address', '{ apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: { name: i }, status: { loadBalancer: {} } }',
      { state: 'waiting', message: 'waiting for the ingress controller to publish an address' }],
    ['an ingress with a hostname', '{ apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: { name: i }, status: { loadBalancer: { ingress: [{ hostname: lb.example.com }] } } }',
      { state: 'done', message: 'ingress at lb.example.com' }],
    ['an established CRD', '{ apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: { name: w.x.io }, status: { conditions: [{ type: NamesAccepted, status: "True" }, { type: Established, status: "True" }] } }',
      { state: 'done', message: 'established' }],
    ['a CRD not yet established', '{ apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: { name: w.x.io }, status: { conditions: [{ type: Established, status: "False", reason: Installing }] } }',
      { state: 'waiting', message: 'waiting to be established (Installing)' }],
    ['a CRD whose names clash', '{ apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: { name: w.x.io }, status: { conditions: [{ type: NamesAccepted, status: "False", reason: MultipleConflictingNames, message: plural already used }] } }',
      { state: 'failed', reason: 'NamesNotAccepted', message: 'names not accepted (MultipleConflictingNames: plural already used)' }],
    ['an active namespace', '{ apiVersion: v1, kind: Namespace, metadata: { name: app }, status: { phase: Active } }', { state: 'done', message: 'active' }],
    ['a terminating namespace', '{ apiVersion: v1, kind: Namespace, metadata: { name: app }, status: { phase: Terminating } }',
      { state: 'waiting', message: 'namespace is terminating; it must be gone before it can be recreated' }],
    ['a namespace without a phase yet', '{ apiVersion: v1, kind: Namespace, metadata: { name: app } }', { state: 'waiting', message: 'namespace phase not reported yet' }],
    ['a ConfigMap, which has nothing to wait for', '{ apiVersion: v1, kind: ConfigMap, metadata: { name: c } }', { state: 'done', message: 'ConfigMap is ready once applied' }],
    ['an object being deleted', '{ apiVersion: v1, kind: ConfigMap, metadata: { name: c, deletionTimestamp: "2026-01-01T00:00:00Z" } }', { state: 'waiting', message: 'being deleted' }],
  ])('GIVEN %s THEN the gate says so', (_name, yaml, expected) => {
    expect(gateFor(obj(yaml), ctx())).toEqual(expected);
  });
});
