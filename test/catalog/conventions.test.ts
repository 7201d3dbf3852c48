/**
 * The production conventions every catalog framework promises (docs/catalog.md), checked on the
 * rendered objects of every plan of every version, with defaults and with a "full" set of values that
 * turns optional features on (metrics, CPU limits, scheduling constraints).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Renderer, type Framework, type RenderedPlan } from '../../src/render/index.js';
import { isRecord } from '../../src/kube/object.js';
import { at, catalogVersions, containersOf, loadCatalogFramework, objectsOf, podTemplates, renderOk } from './support.js';

const renderer = new Renderer();
afterAll(() => renderer.close());

/** Values a production user might set; only those a framework declares are used. */
const FULL_VALUES: Record<string, unknown> = {
  PASSWORD: 'Correct-Horse-Battery-Staple-42',
  METRICS_ENABLED: true,
  CPU_LIMIT: '2',
  NODE_SELECTOR: { 'node.kubernetes.io/pool': 'data' },
  TOLERATIONS: [{ key: 'dedicated', operator: 'Equal', value: 'data', effect: 'NoSchedule' }],
  PRIORITY_CLASS_NAME: 'data-critical',
  ANTI_AFFINITY: 'required',
  STORAGE_CLASS: 'fast-ssd',
};

interface Case {
  label: string;
  plans: { name: string; rendered: RenderedPlan }[];
}

const cases: Case[] = [];

beforeAll(async () => {
  for (const v of catalogVersions()) {
    const framework: Framework = await loadCatalogFramework(v);
    const declared = new Set(framework.params.map((p) => p.name));
    const full = Object.fromEntries(Object.entries(FULL_VALUES).filter(([k]) => declared.has(k)));
    for (const [variant, values] of [['defaults', {}], ['full values', full]] as const) {
      const plans = [];
      for (const name of Object.keys(framework.decl.plans)) plans.push({ name, rendered: await renderOk(renderer, { framework, plan: name, values }) });
      cases.push({ label: `${v.label} with ${variant}`, plans });
    }
  }
});

/** Each check runs over every case and lists every violation, so one failure shows them all. */
function violations(check: (c: Case, plan: { name: string; rendered: RenderedPlan }) => string[]): string[] {
  return cases.flatMap((c) => c.plans.flatMap((p) => check(c, p).map((v) => `${c.label}, plan ${p.name}: ${v}`)));
}

describe('every catalog framework', () => {
  it('renders at least one version of zookeeper, redis and postgresql, and two of redis and kafka', () => {
    const versions = catalogVersions().map((v) => v.label);
    expect(versions).toEqual(expect.arrayContaining(['zookeeper 1.0.0', 'redis 1.0.0', 'redis 1.1.0', 'postgresql 1.0.0', 'kafka 1.0.0', 'kafka 1.1.0']));
  });

  it('is checked on every plan of every version, twice (defaults and full values)', () => {
    expect(cases).toHaveLength(catalogVersions().length * 2);
    expect(cases.every((c) => c.plans.some((p) => podTemplates(p.rendered).length > 0))).toBe(true);
  });

  it('pins every image to an explicit tag (never latest)', () => {
    expect(
      violations((_c, p) =>
        podTemplates(p.rendered).flatMap((t) =>
          containersOf(t.spec)
            .map((c) => String(c.image))
            .filter((image) => !/^[a-z0-9./_-]+:[A-Za-z0-9._-]+$/.test(image) || image.endsWith(':latest'))
            .map((image) => `${t.owner.metadata.name ?? ''} uses image ${image}`),
        ),
      ),
    ).toEqual([]);
  });

  it('runs every container non-root, without privilege escalation or capabilities, on a read-only root file system', () => {
    expect(
      violations((_c, p) =>
        podTemplates(p.rendered).flatMap((t) =>
          containersOf(t.spec).flatMap((c) => {
            const sc = c.securityContext;
            const ok =
              isRecord(sc) &&
              sc.runAsNonRoot === true &&
              sc.allowPrivilegeEscalation === false &&
              sc.readOnlyRootFilesystem === true &&
              JSON.stringify(at(sc, ['capabilities', 'drop'])) === '["ALL"]';
            const pod = t.spec.securityContext;
            const podOk = isRecord(pod) && pod.runAsNonRoot === true && at(pod, ['seccompProfile', 'type']) === 'RuntimeDefault';
            return ok && podOk ? [] : [`${t.owner.kind}/${t.owner.metadata.name ?? ''} container ${String(c.name)}`];
          }),
        ),
      ),
    ).toEqual([]);
  });

  it('gives every container CPU and memory requests and a memory limit', () => {
    expect(
      violations((_c, p) =>
        podTemplates(p.rendered).flatMap((t) =>
          containersOf(t.spec)
            .filter((c) => !at(c, ['resources', 'requests', 'cpu']) || !at(c, ['resources', 'requests', 'memory']) || !at(c, ['resources', 'limits', 'memory']))
            .map((c) => `${t.owner.metadata.name ?? ''} container ${String(c.name)}`),
        ),
      ),
    ).toEqual([]);
  });

  it('probes every long-running container for readiness and liveness', () => {
    expect(
      violations((_c, p) =>
        objectsOf(p.rendered, 'StatefulSet').flatMap((sts) =>
          containersOf((at(sts, ['spec', 'template', 'spec']) ?? {}) as Record<string, unknown>)
            .filter((c) => !isRecord(c.readinessProbe) || !isRecord(c.livenessProbe))
            .map((c) => `${sts.metadata.name ?? ''} container ${String(c.name)}`),
        ),
      ),
    ).toEqual([]);
  });

  it('names every object after the instance, so two instances can share a namespace', () => {
    expect(
      violations((_c, p) =>
        objectsOf(p.rendered)
          .map((o) => o.metadata.name ?? '')
          .filter((name) => name !== 'demo' && !name.startsWith('demo-'))
          .map((name) => `object ${name}`),
      ),
    ).toEqual([]);
  });

  it('leaves the namespace to Baton', () => {
    expect(
      violations((_c, p) => objectsOf(p.rendered).filter((o) => o.metadata.namespace !== 'catalog').map((o) => `${o.kind}/${o.metadata.name ?? ''} in ${String(o.metadata.namespace)}`)),
    ).toEqual([]);
  });

  it('never selects Job pods with a Service, although they carry the same standard labels', () => {
    expect(
      violations((_c, p) => {
        const jobPods = podTemplates(p.rendered).filter((t) => t.owner.kind === 'Job');
        return objectsOf(p.rendered, 'Service').flatMap((svc) => {
          const selector = at(svc, ['spec', 'selector']);
          if (!isRecord(selector)) return [`Service/${svc.metadata.name ?? ''} has no selector`];
          return jobPods
            .filter((pod) => Object.entries(selector).every(([k, v]) => pod.labels[k] === v))
            .map((pod) => `Service/${svc.metadata.name ?? ''} selects the pods of Job/${pod.owner.metadata.name ?? ''}`);
        });
      }),
    ).toEqual([]);
  });

  it('selects with labels that are on the pod template of some workload of the instance', () => {
    // A typo in a selector would leave a Service without endpoints: check each Service and PDB
    // matches a workload's pods in the plans that deploy them.
    expect(
      violations((_c, p) => {
        const pods = podTemplates(p.rendered).filter((t) => t.owner.kind === 'StatefulSet' || t.owner.kind === 'Deployment');
        if (pods.length === 0) return [];
        const selectors = [
          ...objectsOf(p.rendered, 'Service').map((o) => ({ o, sel: at(o, ['spec', 'selector']) })),
          ...objectsOf(p.rendered, 'PodDisruptionBudget').map((o) => ({ o, sel: at(o, ['spec', 'selector', 'matchLabels']) })),
        ];
        return selectors
          .filter(({ sel }) => !isRecord(sel) || !pods.some((pod) => Object.entries(sel).every(([k, v]) => pod.labels[k] === v)))
          .map(({ o }) => `${o.kind}/${o.metadata.name ?? ''} selects no pods`);
      }),
    ).toEqual([]);
  });

  it('mounts only ConfigMaps and claims the instance renders, or the data claims its StatefulSets create', () => {
    // e.g. the Redis restore Job mounts `data-demo-primary-0`, made from the primary's claim template.
    const rendered = new Map(cases.map((c) => [c, new Set(c.plans.flatMap((p) => objectsOf(p.rendered).map((o) => `${o.kind}/${o.metadata.name ?? ''}`)))]));
    expect(
      violations((c, p) =>
        podTemplates(p.rendered).flatMap((t) =>
          (Array.isArray(t.spec.volumes) ? t.spec.volumes : []).flatMap((vol) => {
            const configMap = at(vol, ['configMap', 'name']);
            const claim = at(vol, ['persistentVolumeClaim', 'claimName']);
            const ref = typeof configMap === 'string' ? `ConfigMap/${configMap}` : typeof claim === 'string' ? `PersistentVolumeClaim/${claim}` : undefined;
            const exists = ref === undefined || rendered.get(c)?.has(ref) === true || /^PersistentVolumeClaim\/data-demo-[a-z-]*-?0$/.test(ref);
            return exists ? [] : [`${t.owner.metadata.name ?? ''} mounts ${ref ?? ''}`];
          }),
        ),
      ),
    ).toEqual([]);
  });

  it('makes the storage of StatefulSets immutable parameters', async () => {
    const problems: string[] = [];
    for (const v of catalogVersions()) {
      const framework = await loadCatalogFramework(v);
      for (const p of framework.params.filter((d) => /^(BACKUP_)?STORAGE_(SIZE|CLASS)$/.test(d.name))) {
        if (p.immutable !== true) problems.push(`${v.label} ${p.name}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
