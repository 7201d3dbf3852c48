/**
 * Pods -> Kubernetes objects and plans -> Baton plans. A pod with RUNNING tasks becomes a StatefulSet
 * (count -> replicas, one container per RUNNING task, FINISH/ONCE tasks that its deploy steps run before
 * them -> init containers, volumes -> volume claim templates, placement -> affinity and topology spread),
 * with a headless Service (every port) and a Service per VIP prefix; config templates become a ConfigMap.
 * FINISH/ONCE tasks that a plan runs on their own become Jobs (one completion per pod instance, Indexed).
 * A phase's strategy becomes the StatefulSet's podManagementPolicy (serial -> OrderedReady: Kubernetes
 * starts pod i+1 once pod i is ready, as DC/OS expanded `steps: - default: [[...]]` per pod instance).
 */
import type { ParamDecl, PlanDecl, TaskDecl } from '../../render/schemas.js';
import type { FindingLog, GeneratedFile, SourceLocation } from '../report.js';
import { isRecord, toDnsLabel } from '../util.js';
import { configTemplateJs } from './config-template.js';
import { js, toEjsYaml, type JsLeaf, type Tree } from './emit.js';
import { concat, exprJs, isLiteral, lit, literalText, paramsOf, type Expr } from './expr.js';
import { placementToScheduling } from './placement.js';
import type { PhaseSpec, PlanSpec, PodSpec, SpecValues, TaskSpec } from './spec.js';
import type { Variables } from './vars.js';

export const SANDBOX = '/mnt/mesos/sandbox';

export interface BuildInput {
  values: SpecValues;
  vars: Variables;
  pods: PodSpec[];
  plans: PlanSpec[];
  log: FindingLog;
  /** Config template files by path relative to svc.yml's folder. */
  files: ReadonlyMap<string, string>;
  header: string;
}

export interface BuildOutput {
  tasks: TaskDecl[];
  plans: Record<string, PlanDecl>;
  templates: GeneratedFile[];
  /** Parameters declared only because the objects need them (images). */
  extraParams: ParamDecl[];
}

const TASK_FIELDS = new Set(['goal', 'cmd', 'cpus', 'gpus', 'memory', 'ports', 'env', 'health-check', 'readiness-check', 'volume', 'volumes', 'resource-set', 'configs', 'kill-grace-period', 'essential', 'discovery', 'transport-encryption', 'uris', 'labels']);
const POD_FIELDS = new Set(['count', 'image', 'container', 'placement', 'resource-sets', 'tasks', 'volume', 'volumes', 'uris', 'rlimits', 'networks', 'secrets', 'user', 'share-pid-namespace', 'pre-reserved-role', 'allow-decommission', 'host-volumes']);

interface PodPlan {
  /** Tasks run as init containers, in order. */
  init: TaskSpec[];
  /** RUNNING tasks: the containers. */
  running: TaskSpec[];
  policy: 'OrderedReady' | 'Parallel';
}

export class DcosBuilder {
  private readonly out: BuildOutput = { tasks: [], plans: {}, templates: [], extraParams: [] };
  private readonly podPlans = new Map<string, PodPlan>();
  private readonly jobTasks = new Set<string>();

  constructor(private readonly i: BuildInput) {}

  private get log(): FindingLog {
    return this.i.log;
  }
  private at(path: readonly (string | number)[]): SourceLocation {
    return this.i.values.at(path);
  }
  private ex(v: unknown, path: readonly (string | number)[]): Expr | undefined {
    return this.i.values.expr(v, path);
  }
  private jsOf(e: Expr, want: 'string' | 'number' | 'value'): string {
    return exprJs(e, this.i.vars.params, want);
  }
  /** A literal stays a literal in the YAML; anything else becomes a tag. */
  private leaf(e: Expr | undefined, want: 'string' | 'number'): Tree | undefined {
    if (!e) return undefined;
    if (isLiteral(e)) return want === 'number' ? Number(literalText(e)) : literalText(e);
    return js(this.jsOf(e, want));
  }
  private name(suffix: string): JsLeaf {
    return js(`instance.name + ${JSON.stringify(`-${suffix}`)}`);
  }
  private selector(pod: string): string {
    return `({ ...selectorLabels, "app.kubernetes.io/component": ${JSON.stringify(pod)} })`;
  }

  build(): BuildOutput {
    const plans = this.i.plans.length > 0 ? this.i.plans : [this.defaultDeploy()];
    if (!plans.some((p) => p.name === 'deploy')) plans.unshift(this.defaultDeploy());
    this.decidePods(plans.find((p) => p.name === 'deploy')!);
    for (const pod of this.i.pods) {
      this.checkFields(pod);
      if (this.podPlans.has(pod.name)) this.statefulSet(pod);
    }
    for (const plan of plans) {
      const decl = this.plan(plan);
      if (decl) this.out.plans[plan.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-')] = decl;
    }
    return this.out;
  }

  private defaultDeploy(): PlanSpec {
    this.log.mapped('IMPORT_DCOS_DEFAULT_PLAN', { file: this.i.values.src.file, line: 0, column: 0 }, 'no deploy plan: as the SDK does, every pod is deployed in order, serially, with its RUNNING tasks');
    return {
      name: 'deploy',
      strategy: 'serial',
      phases: this.i.pods.map((p) => ({ name: p.name, strategy: 'serial', pod: p.name, steps: undefined, at: this.at(p.path) })),
      at: { file: this.i.values.src.file, line: 0, column: 0 },
    };
  }

  private task(pod: PodSpec, name: string, at: SourceLocation): TaskSpec | undefined {
    const t = pod.tasks.find((x) => x.name === name);
    if (!t) this.log.error('IMPORT_DCOS_STEP_TASK', at, `pod ${pod.name} has no task ${name}`);
    return t;
  }

  private pod(name: string): PodSpec {
    return this.i.pods.find((p) => p.name === name)!;
  }

  /** Default task sets of a phase: its `default` entry, else the pod's RUNNING tasks. */
  private taskSets(phase: PhaseSpec): string[][] {
    const pod = this.pod(phase.pod);
    const def = phase.steps?.find((s) => s.index === 'default');
    for (const s of phase.steps ?? []) {
      if (s.index !== 'default' && JSON.stringify(s.taskSets) !== JSON.stringify(def?.taskSets)) {
        this.log.untranslated('IMPORT_DCOS_INSTANCE_STEP', s.at, `steps for pod instance ${s.index} differ from the default; the pods of one StatefulSet share one template, so only the default steps are translated`);
      }
    }
    if (def) return def.taskSets;
    if (phase.steps && phase.steps.length > 0) return phase.steps[0]!.taskSets;
    return [pod.tasks.filter((t) => t.goal === 'RUNNING').map((t) => t.name)];
  }

  private policy(strategy: string, at: SourceLocation): 'OrderedReady' | 'Parallel' {
    const s = strategy.toLowerCase();
    // A phase's canary runs its pod instances one by one with manual continues; here the pod instances are one
    // StatefulSet applied by one step, so there is no step to stop after (plan-level canary is kept: see plan()).
    if (s.includes('canary')) this.log.untranslated('IMPORT_DCOS_CANARY', at, `phase strategy ${strategy}: the canary is over pod instances, which become one StatefulSet applied by one step, so Baton's ${s} (which waits between steps) has nothing to wait between; translated as ${s.startsWith('parallel') ? 'parallel' : 'serial'} (pod ${s.startsWith('parallel') ? 'Parallel' : 'OrderedReady'} management). To trial a change on one pod first, pause the plan (baton plan pause) or stage it with a StatefulSet rollingUpdate partition`);
    else if (s !== 'serial' && s !== 'parallel') this.log.error('IMPORT_DCOS_STRATEGY', at, `unknown strategy ${JSON.stringify(strategy)}`);
    return s.startsWith('parallel') ? 'Parallel' : 'OrderedReady';
  }

  /** Which tasks of each pod the deploy plan runs as init containers and containers. */
  private decidePods(deploy: PlanSpec): void {
    for (const phase of deploy.phases) {
      const pod = this.pod(phase.pod);
      const sets = this.taskSets(phase).map((set) => set.map((n) => this.task(pod, n, phase.at)).filter((t): t is TaskSpec => t !== undefined));
      const plan = this.podPlans.get(pod.name) ?? { init: [], running: [], policy: this.policy(phase.strategy, phase.at) };
      const hasRunning = pod.tasks.some((t) => t.goal === 'RUNNING');
      if (!hasRunning) continue;
      let seenRunning = plan.running.length > 0;
      for (const set of sets) {
        for (const t of set) {
          if (t.goal === 'RUNNING') {
            if (!plan.running.includes(t)) plan.running.push(t);
            seenRunning = true;
          } else if (!seenRunning) {
            plan.init.push(t);
            this.log.mapped('IMPORT_DCOS_INIT_TASK', this.at(t.path), `task ${t.name} (${t.goal}) runs before the RUNNING tasks of pod ${pod.name}: it becomes an init container, which runs at every start of each pod${t.goal === 'ONCE' ? ' (not only once)' : ''}`);
          } else {
            this.log.untranslated('IMPORT_DCOS_TASK_AFTER_RUNNING', this.at(t.path), `task ${t.name} (${t.goal}) runs after the RUNNING tasks of pod ${pod.name}; Kubernetes has no step after a container started; left out`);
          }
        }
      }
      if (plan.running.length > 0) this.podPlans.set(pod.name, plan);
    }
    for (const pod of this.i.pods) {
      if (pod.tasks.some((t) => t.goal === 'RUNNING') && !this.podPlans.has(pod.name)) {
        this.log.untranslated('IMPORT_DCOS_POD_UNDEPLOYED', this.at(pod.path), `pod ${pod.name} is not deployed by the deploy plan; left out`);
      }
    }
  }

  private checkFields(pod: PodSpec): void {
    for (const k of Object.keys(pod.raw)) if (!POD_FIELDS.has(k)) this.log.untranslated('IMPORT_DCOS_FIELD', this.at([...pod.path, k]), `pod ${pod.name}: field ${k} is not a pod field; left out`);
    const reasons: Record<string, string> = {
      uris: 'files fetched into the Mesos sandbox: put them in the image (or an init container)',
      rlimits: 'rlimits are set by the container runtime on Kubernetes, not per pod',
      networks: 'every Kubernetes pod has its own IP address; virtual networks are the cluster network',
      secrets: 'DC/OS secret store paths: create Kubernetes Secrets and reference them',
      user: 'a user name: Kubernetes needs a numeric runAsUser in securityContext',
      'pre-reserved-role': 'Mesos roles have no Kubernetes counterpart',
      'allow-decommission': 'decommissioning is a scheduler function; scale the StatefulSet down instead',
      'host-volumes': 'host paths: use hostPath volumes deliberately, if at all',
    };
    for (const [k, why] of Object.entries(reasons)) if (pod.raw[k] !== undefined) this.log.untranslated('IMPORT_DCOS_SCHEDULER_ONLY', this.at([...pod.path, k]), `pod ${pod.name}: ${k} not translated: ${why}`);
    for (const t of pod.tasks) {
      for (const k of Object.keys(t.raw)) if (!TASK_FIELDS.has(k)) this.log.untranslated('IMPORT_DCOS_FIELD', this.at([...t.path, k]), `task ${t.name}: field ${k} is not a task field; left out`);
      const tr: Record<string, string> = {
        discovery: 'Mesos DNS names: pods are found through the StatefulSet headless Service',
        'transport-encryption': 'TLS certificates from the DC/OS CA: use cert-manager',
        essential: 'non-essential tasks (the pod survives their exit) have no counterpart: every container counts',
        uris: 'files fetched into the Mesos sandbox: put them in the image',
        labels: 'Mesos task labels',
      };
      for (const [k, why] of Object.entries(tr)) if (t.raw[k] !== undefined) this.log.untranslated('IMPORT_DCOS_SCHEDULER_ONLY', this.at([...t.path, k]), `task ${t.name}: ${k} not translated: ${why}`);
    }
  }

  // ------------------------------------------------------------------ resources of a task

  /** The task's own resources, or those of its resource set. */
  private resourcesOf(pod: PodSpec, t: TaskSpec): { raw: Record<string, unknown>; path: (string | number)[] } {
    const rs = t.raw['resource-set'];
    if (typeof rs === 'string') {
      const sets = isRecord(pod.raw['resource-sets']) ? pod.raw['resource-sets'] : {};
      const set = sets[rs];
      if (isRecord(set)) {
        this.log.mapped('IMPORT_DCOS_RESOURCE_SET', this.at([...t.path, 'resource-set']), `task ${t.name} takes cpus, memory, ports and volumes from resource set ${rs} (tasks sharing a set never run at once in DC/OS; each container gets its own requests here)`);
        return { raw: set, path: [...pod.path, 'resource-sets', rs] };
      }
      this.log.error('IMPORT_DCOS_RESOURCE_SET', this.at([...t.path, 'resource-set']), `resource set ${rs} is not defined in pod ${pod.name}`);
    }
    return { raw: t.raw, path: t.path };
  }

  private volumesOf(raw: Record<string, unknown>, path: (string | number)[]): { name: string; path: Expr; size: Expr; at: SourceLocation }[] {
    const out: { name: string; path: Expr; size: Expr; at: SourceLocation }[] = [];
    const one = (v: unknown, p: (string | number)[], name?: string): void => {
      if (!isRecord(v)) return;
      const mount = this.ex(v.path, [...p, 'path']);
      const size = this.ex(v.size, [...p, 'size']);
      if (!mount || !size) {
        this.log.error('IMPORT_DCOS_VOLUME', this.at(p), 'a volume needs a path and a size');
        return;
      }
      const type = typeof v.type === 'string' ? v.type : 'ROOT';
      const vname = toDnsLabel(name ?? literalText(mount).split('/').filter(Boolean).pop() ?? 'data') || 'data';
      this.log.mapped('IMPORT_DCOS_VOLUME', this.at(p), `${type} volume ${vname} (${literalText(size) || 'size from a parameter'} MB) -> a volume claim template per pod with ReadWriteOnce; ${type === 'MOUNT' ? 'MOUNT volumes were dedicated disks: choose a storage class that provides them' : 'the cluster default storage class'}`);
      out.push({ name: vname, path: mount, size, at: this.at(p) });
    };
    if (raw.volume !== undefined) one(raw.volume, [...path, 'volume']);
    if (isRecord(raw.volumes)) for (const [k, v] of Object.entries(raw.volumes)) one(v, [...path, 'volumes', k], k);
    return out;
  }

  private mountPath(p: Expr): Tree {
    const text = literalText(p);
    if (isLiteral(p) && text.startsWith('/')) return text;
    return this.leaf(isLiteral(p) ? lit(`${SANDBOX}/${text}`) : concat(lit(`${SANDBOX}/`), p), 'string')!;
  }

  private ports(raw: Record<string, unknown>, path: (string | number)[]): { name: string; port: Expr; env: string; vip?: { prefix: string; port: Expr } }[] {
    const out: { name: string; port: Expr; env: string; vip?: { prefix: string; port: Expr } }[] = [];
    if (!isRecord(raw.ports)) return out;
    for (const [pname, pv] of Object.entries(raw.ports)) {
      const pp = [...path, 'ports', pname];
      if (!isRecord(pv)) continue;
      const port = this.ex(pv.port, [...pp, 'port']);
      if (!port) continue;
      if (isLiteral(port) && Number(literalText(port)) === 0) {
        this.log.untranslated('IMPORT_DCOS_DYNAMIC_PORT', this.at([...pp, 'port']), `port ${pname} is dynamic (0): Kubernetes pods have their own IP, so pick a fixed port; left out`);
        continue;
      }
      const name = toDnsLabel(pname).slice(0, 15).replace(/-+$/, '');
      if (name !== pname) this.log.mapped('IMPORT_DCOS_PORT_NAME', this.at(pp), `port ${pname} is named ${name} (Kubernetes port names are at most 15 lowercase characters)`);
      const envKey = typeof pv['env-key'] === 'string' ? pv['env-key'] : `PORT_${pname.toUpperCase().replace(/-/g, '_')}`;
      const entry: (typeof out)[number] = { name, port, env: envKey };
      if (isRecord(pv.vip)) {
        const vport = this.ex(pv.vip.port, [...pp, 'vip', 'port']);
        const prefix = typeof pv.vip.prefix === 'string' ? pv.vip.prefix : pname;
        if (vport) {
          entry.vip = { prefix: toDnsLabel(prefix), port: vport };
          this.log.mapped('IMPORT_DCOS_VIP', this.at([...pp, 'vip']), `VIP ${prefix}:${literalText(vport) || 'port'} -> Service <instance>-${toDnsLabel(prefix)} (ClusterIP) port ${literalText(vport) || 'from a parameter'} -> container port ${name}`);
        }
      }
      out.push(entry);
    }
    return out;
  }

  private probe(raw: unknown, path: (string | number)[], kind: 'health' | 'readiness'): { probe?: Tree; startup?: Tree } {
    if (!isRecord(raw)) return {};
    const cmd = this.ex(raw.cmd, [...path, 'cmd']);
    if (!cmd) return {};
    const num = (k: string): Tree | undefined => this.leaf(this.ex(raw[k], [...path, k]), 'number');
    const exec = { command: ['/bin/sh', '-c', this.leaf(cmd, 'string')!] };
    const probe: Record<string, Tree | undefined> = { exec, periodSeconds: num('interval'), initialDelaySeconds: num('delay'), timeoutSeconds: num('timeout') };
    if (kind === 'health') probe.failureThreshold = num('max-consecutive-failures');
    const out: { probe?: Tree; startup?: Tree } = { probe: probe };
    const grace = raw['grace-period'];
    if (kind === 'health' && (typeof grace === 'number' || typeof grace === 'string')) {
      const interval = typeof raw.interval === 'number' ? raw.interval : 10;
      const threshold = Math.max(1, Math.ceil(Number(grace) / interval));
      out.startup = { exec, periodSeconds: interval, failureThreshold: threshold };
      this.log.mapped('IMPORT_DCOS_GRACE_PERIOD', this.at([...path, 'grace-period']), `health-check grace-period ${String(grace)}s -> a startupProbe (${threshold} x ${interval}s) before the livenessProbe counts`);
    }
    return out;
  }

  /** The container of a task. */
  private container(pod: PodSpec, t: TaskSpec, image: Tree, withEnv: boolean): { container: Record<string, Tree | undefined>; claims: Tree[]; configs: { key: string; js: string; dest: Tree }[]; ports: ReturnType<DcosBuilder['ports']> } {
    const res = this.resourcesOf(pod, t);
    const cmd = this.ex(t.raw.cmd, [...t.path, 'cmd']);
    if (!cmd) this.log.error('IMPORT_DCOS_CMD', this.at(t.path), `task ${t.name} has no cmd`);
    const cpus = this.ex(res.raw.cpus, [...res.path, 'cpus']);
    const mem = this.ex(res.raw.memory, [...res.path, 'memory']);
    const gpus = this.ex(res.raw.gpus, [...res.path, 'gpus']);
    const ports = this.ports(res.raw, res.path);
    const env = this.env(pod, t, ports, withEnv);
    const resources: Record<string, Tree> = {};
    const requests: Record<string, Tree> = {};
    const limits: Record<string, Tree> = {};
    if (cpus) requests.cpu = this.leaf(cpus, 'string')!;
    if (mem) {
      requests.memory = this.leaf(concat(mem, lit('Mi')), 'string')!;
      limits.memory = requests.memory;
    }
    if (gpus) {
      limits['nvidia.com/gpu'] = this.leaf(gpus, 'number')!;
      this.log.mapped('IMPORT_DCOS_GPUS', this.at([...res.path, 'gpus']), 'gpus -> the nvidia.com/gpu resource limit');
    }
    if (Object.keys(requests).length > 0) resources.requests = requests;
    if (Object.keys(limits).length > 0) resources.limits = limits;
    const mounts: Tree[] = [{ name: 'sandbox', mountPath: SANDBOX }];
    const claims: Tree[] = [];
    for (const v of [...this.volumesOf(res.raw, res.path), ...(res.raw === t.raw ? [] : this.volumesOf(t.raw, t.path))]) {
      mounts.push({ name: v.name, mountPath: this.mountPath(v.path) });
      claims.push({ metadata: { name: v.name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: this.leaf(concat(v.size, lit('Mi')), 'string')! } } } });
    }
    const configs = this.configs(pod, t, ports, mounts);
    const health = this.probe(t.raw['health-check'], [...t.path, 'health-check'], 'health');
    const ready = this.probe(t.raw['readiness-check'], [...t.path, 'readiness-check'], 'readiness');
    const container: Record<string, Tree | undefined> = {
      name: toDnsLabel(t.name),
      image,
      command: ['/bin/sh', '-c', this.leaf(cmd ?? lit('true'), 'string')!],
      workingDir: SANDBOX,
      env,
      ports: ports.length > 0 ? ports.map((p) => ({ name: p.name, containerPort: this.leaf(p.port, 'number')! })) : undefined,
      resources: Object.keys(resources).length > 0 ? resources : undefined,
      volumeMounts: mounts,
      startupProbe: health.startup,
      livenessProbe: health.probe,
      readinessProbe: ready.probe,
    };
    return { container, claims, configs, ports };
  }

  /** The task's environment: the SDK's variables, ports, TASKCFG_ options of the pod, then its own env. */
  private env(pod: PodSpec, t: TaskSpec, ports: ReturnType<DcosBuilder['ports']>, withSdk: boolean): Tree[] {
    const env: Tree[] = [];
    if (withSdk) {
      env.push({ name: 'MESOS_SANDBOX', value: SANDBOX }, { name: 'FRAMEWORK_NAME', value: js('instance.name') }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
      env.push({ name: 'POD_INSTANCE_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" } } });
      env.push({ name: 'TASK_NAME', value: `$(POD_NAME)-${t.name}` });
    }
    for (const p of ports) env.push({ name: p.env, value: this.leaf(p.port, 'string')! });
    for (const [k, e] of this.i.vars.taskConfig(pod.name)) {
      for (const p of paramsOf(e)) this.i.values.used.add(p);
      env.push({ name: k, value: this.leaf(e, 'string')! });
    }
    if (isRecord(t.raw.env)) {
      for (const [k, v] of Object.entries(t.raw.env)) {
        const e = this.ex(v, [...t.path, 'env', k]);
        if (e) env.push({ name: k, value: this.leaf(e, 'string')! });
      }
    }
    return env;
  }

  /** Config templates -> ConfigMap keys (EJS that builds each file) mounted at their destinations. */
  private configs(pod: PodSpec, t: TaskSpec, ports: ReturnType<DcosBuilder['ports']>, mounts: Tree[]): { key: string; js: string; dest: Tree }[] {
    const configs: { key: string; js: string; dest: Tree }[] = [];
    if (!isRecord(t.raw.configs)) return configs;
    {
      const taskEnv = new Map<string, Expr>([...this.i.vars.taskConfig(pod.name)]);
      taskEnv.set('MESOS_SANDBOX', lit(SANDBOX));
      taskEnv.set('FRAMEWORK_NAME', [{ instance: true }]);
      for (const p of ports) taskEnv.set(p.env, p.port);
      if (isRecord(t.raw.env)) for (const [k, v] of Object.entries(t.raw.env)) {
        const e = this.ex(v, [...t.path, 'env', k]);
        if (e) taskEnv.set(k, e);
      }
      for (const [cname, c] of Object.entries(t.raw.configs)) {
        const cp = [...t.path, 'configs', cname];
        if (!isRecord(c) || typeof c.template !== 'string' || typeof c.dest !== 'string') {
          this.log.error('IMPORT_DCOS_CONFIG', this.at(cp), `config ${cname} needs a template and a dest`);
          continue;
        }
        const text = this.i.files.get(c.template);
        if (text === undefined) {
          this.log.error('IMPORT_DCOS_CONFIG_MISSING', this.at([...cp, 'template']), `config template ${c.template} was not found beside svc.yml`);
          continue;
        }
        const code = configTemplateJs({ file: c.template, text, env: taskEnv, params: this.i.vars.params, used: this.i.values.used, log: this.log });
        if (code === undefined) continue;
        const key = toDnsLabel(`${t.name}-${cname}`);
        const dest = c.dest.startsWith('/') ? c.dest : `${SANDBOX}/${c.dest}`;
        mounts.push({ name: 'config', mountPath: dest, subPath: key, readOnly: true });
        configs.push({ key, js: code, dest });
        this.log.mapped('IMPORT_DCOS_CONFIG', this.at(cp), `config template ${c.template} -> ConfigMap <instance>-${pod.name}-config key ${key}, mounted at ${dest} (rendered by Baton, not by bootstrap)`);
      }
    }
    return configs;
  }

  private image(pod: PodSpec): Tree {
    const raw = pod.raw.image ?? (isRecord(pod.raw.container) ? pod.raw.container['image-name'] : undefined);
    const path = pod.raw.image !== undefined ? [...pod.path, 'image'] : [...pod.path, 'container', 'image-name'];
    const e = this.ex(raw, path);
    if (e) return this.leaf(e, 'string')!;
    const pname = `IMAGE_${pod.name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
    if (!this.out.extraParams.some((p) => p.name === pname)) {
      this.out.extraParams.push({ name: pname, type: 'string', description: `Container image of pod ${pod.name} (DC/OS ran it without an image, in the Mesos sandbox of the host).` });
      this.log.untranslated('IMPORT_DCOS_NO_IMAGE', this.at(pod.path), `pod ${pod.name} has no image: DC/OS ran its commands on the host; Kubernetes needs an image, so the framework gets a required parameter ${pname}`);
    }
    this.i.values.used.add(pname);
    return js(`params.${pname}`);
  }

  // ------------------------------------------------------------------ objects

  private statefulSet(pod: PodSpec): void {
    const plan = this.podPlans.get(pod.name)!;
    const image = this.image(pod);
    const built = plan.running.map((t) => this.container(pod, t, image, true));
    const inits = plan.init.map((t) => {
      const b = this.container(pod, t, image, true);
      // Init containers have no ports or probes in Kubernetes.
      for (const k of ['ports', 'livenessProbe', 'readinessProbe', 'startupProbe']) b.container[k] = undefined;
      return { ...b, ports: [] };
    });
    const count = this.ex(pod.raw.count ?? 1, [...pod.path, 'count']) ?? lit('1');
    const claims = new Map<string, Tree>();
    for (const b of [...inits, ...built]) for (const c of b.claims) claims.set(JSON.stringify((c as { metadata: { name: string } }).metadata.name), c);
    for (const v of this.volumesOf(pod.raw, pod.path)) {
      claims.set(JSON.stringify(v.name), { metadata: { name: v.name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: this.leaf(concat(v.size, lit('Mi')), 'string')! } } } });
      for (const b of [...inits, ...built]) (b.container.volumeMounts as Tree[]).push({ name: v.name, mountPath: this.mountPath(v.path) });
    }
    const configs = [...inits, ...built].flatMap((b) => b.configs);
    const volumes: Tree[] = [{ name: 'sandbox', emptyDir: {} }];
    if (configs.length > 0) volumes.push({ name: 'config', configMap: { name: this.name(`${pod.name}-config`) } });
    const sched = this.scheduling(pod);
    const grace = Math.max(0, ...pod.tasks.map((t) => Number(t.raw['kill-grace-period'] ?? 0)).filter(Number.isFinite));
    const spec: Record<string, Tree | undefined> = {
      serviceName: this.name(`${pod.name}-hs`),
      replicas: this.leaf(count, 'number'),
      podManagementPolicy: plan.policy,
      selector: { matchLabels: js(this.selector(pod.name)) },
      template: {
        metadata: { labels: js(this.selector(pod.name)) },
        spec: {
          ...(sched.affinity ? { affinity: sched.affinity } : {}),
          ...(sched.topologySpreadConstraints ? { topologySpreadConstraints: sched.topologySpreadConstraints } : {}),
          ...(grace > 0 ? { terminationGracePeriodSeconds: grace } : {}),
          ...(pod.raw['share-pid-namespace'] === true ? { shareProcessNamespace: true } : {}),
          ...(inits.length > 0 ? { initContainers: inits.map((b) => b.container as Tree) } : {}),
          containers: built.map((b) => b.container as Tree),
          volumes,
        },
      },
      volumeClaimTemplates: claims.size > 0 ? [...claims.values()] : undefined,
    };
    const sts: Tree = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: this.name(pod.name), labels: { 'app.kubernetes.io/component': pod.name } }, spec };
    this.log.mapped('IMPORT_DCOS_POD', this.at(pod.path), `pod ${pod.name} -> StatefulSet <instance>-${pod.name} with headless Service <instance>-${pod.name}-hs (${built.length} container(s)${inits.length ? `, ${inits.length} init container(s)` : ''}, podManagementPolicy ${plan.policy})`);
    const resources = [`${pod.name}.yaml.ejs`];
    this.template(`${pod.name}.yaml.ejs`, [sts]);
    const allPorts = [...new Map(built.flatMap((b) => b.ports).map((p) => [p.name, p])).values()];
    const services: Tree[] = [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: this.name(`${pod.name}-hs`), labels: { 'app.kubernetes.io/component': pod.name } },
        spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: js(this.selector(pod.name)), ports: allPorts.length > 0 ? allPorts.map((p) => ({ name: p.name, port: this.leaf(p.port, 'number')! })) : [{ name: 'none', port: 1 }] },
      },
    ];
    const vips = new Map<string, { name: string; port: Expr; target: string }[]>();
    for (const p of allPorts) if (p.vip) vips.set(p.vip.prefix, [...(vips.get(p.vip.prefix) ?? []), { name: p.name, port: p.vip.port, target: p.name }]);
    for (const [prefix, ps] of vips) {
      services.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: this.name(prefix), labels: { 'app.kubernetes.io/component': pod.name } }, spec: { selector: js(this.selector(pod.name)), ports: ps.map((p) => ({ name: p.name, port: this.leaf(p.port, 'number')!, targetPort: p.target })) } });
    }
    this.template(`${pod.name}-services.yaml.ejs`, services);
    resources.unshift(`${pod.name}-services.yaml.ejs`);
    if (configs.length > 0) {
      const data = `{ ${configs.map((c) => `${JSON.stringify(c.key)}: ${c.js}`).join(', ')} }`;
      const header = `${this.i.header}\n<% const data = ${data}; -%>`;
      const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + ${JSON.stringify(`-${pod.name}-config`)} %>\n  labels:\n    app.kubernetes.io/component: ${pod.name}\ndata:<%- nindent(2, toYaml(data)) %>\n`;
      this.out.templates.push({ path: `templates/${pod.name}-config.yaml.ejs`, content: `${header}\n${cm}` });
      resources.unshift(`${pod.name}-config.yaml.ejs`);
    }
    this.out.tasks.push({ name: pod.name, kind: 'Apply', resources });
  }

  private scheduling(pod: PodSpec): ReturnType<typeof placementToScheduling> {
    if (pod.raw.placement === undefined) return {};
    const text = this.i.values.importValue(pod.raw.placement, [...pod.path, 'placement']);
    if (text === undefined) return {};
    return placementToScheduling(text, this.selector(pod.name), this.at([...pod.path, 'placement']), this.log);
  }

  private template(name: string, docs: Tree[]): void {
    this.out.templates.push({ path: `templates/${name}`, content: toEjsYaml(docs, this.i.header) });
  }

  /** A Job for a FINISH/ONCE task that a plan runs on its own: one completion per pod instance. */
  private job(pod: PodSpec, t: TaskSpec, parallel: boolean): string {
    const key = `${pod.name}-${t.name}`;
    if (this.jobTasks.has(key)) return key;
    this.jobTasks.add(key);
    const image = this.image(pod);
    const b = this.container(pod, t, image, true);
    const env = b.container.env as Tree[];
    const idx = env.findIndex((e) => (e as { name: string }).name === 'POD_INSTANCE_INDEX');
    env[idx] = { name: 'POD_INSTANCE_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } };
    const mounts = (b.container.volumeMounts as Tree[]).filter((m) => (m as { name: string }).name === 'sandbox' || (m as { name: string }).name === 'config');
    if (b.claims.length > 0) this.log.untranslated('IMPORT_DCOS_JOB_VOLUME', this.at(t.path), `task ${t.name} runs as a Job: it cannot mount the persistent volumes of pod ${pod.name}'s StatefulSet (they belong to its pods); left out`);
    b.container.volumeMounts = mounts;
    b.container.livenessProbe = undefined;
    b.container.readinessProbe = undefined;
    b.container.startupProbe = undefined;
    const count = this.ex(pod.raw.count ?? 1, [...pod.path, 'count']) ?? lit('1');
    const job: Tree = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: this.name(key), labels: { 'app.kubernetes.io/component': key } },
      spec: {
        completions: this.leaf(count, 'number')!,
        parallelism: parallel ? this.leaf(count, 'number')! : 1,
        completionMode: 'Indexed',
        backoffLimit: 3,
        template: {
          metadata: { labels: { 'app.kubernetes.io/component': key } },
          spec: { restartPolicy: 'OnFailure', containers: [b.container], volumes: [{ name: 'sandbox', emptyDir: {} }, ...(b.configs.length > 0 ? [{ name: 'config', configMap: { name: this.name(`${pod.name}-config`) } }] : [])] },
        },
      },
    };
    this.template(`${key}-job.yaml.ejs`, [job]);
    this.out.tasks.push({ name: key, kind: 'Apply', resources: [`${key}-job.yaml.ejs`] }, { name: `remove-${key}`, kind: 'Delete', resources: [`${key}-job.yaml.ejs`] });
    this.log.mapped('IMPORT_DCOS_JOB', this.at(t.path), `task ${t.name} (${t.goal}) of pod ${pod.name} -> Job <instance>-${key} with one completion per pod instance (Indexed: POD_INSTANCE_INDEX is the completion index), run ${parallel ? 'in parallel' : 'one at a time'}; the previous Job is deleted first${t.goal === 'ONCE' ? '; ONCE: it runs every time its plan runs' : ''}`);
    return key;
  }

  // ------------------------------------------------------------------ plans

  private plan(p: PlanSpec): PlanDecl | undefined {
    const phases: PlanDecl['phases'] = [];
    for (const phase of p.phases) {
      const pod = this.pod(phase.pod);
      const sets = this.taskSets(phase).map((set) => set.map((n) => this.task(pod, n, phase.at)).filter((t): t is TaskSpec => t !== undefined));
      const tasks = sets.flat();
      const podPlan = this.podPlans.get(pod.name);
      const running = tasks.filter((t) => t.goal === 'RUNNING');
      const steps: PlanDecl['phases'][number]['steps'] = [];
      if (running.length > 0 && podPlan) {
        const diff = running.filter((t) => !podPlan.running.includes(t));
        if (diff.length > 0) this.log.untranslated('IMPORT_DCOS_PLAN_TASKS', phase.at, `plan ${p.name}, phase ${phase.name} runs task(s) ${diff.map((t) => t.name).join(', ')} that the deploy plan does not run in pod ${pod.name}; the pod keeps the deploy plan's containers`);
        steps.push({ name: pod.name, tasks: [pod.name] });
        if (p.name !== 'deploy') this.policy(phase.strategy, phase.at);
      } else if (running.length === 0) {
        const onlyInit = podPlan !== undefined && tasks.every((t) => podPlan.init.includes(t));
        if (onlyInit && p.name === 'deploy') continue;
        const parallel = this.policy(phase.strategy, phase.at) === 'Parallel';
        const jobs = tasks.map((t) => this.job(pod, t, parallel));
        steps.push({ name: `remove-${phase.name}`, tasks: jobs.map((j) => `remove-${j}`) });
        steps.push({ name: phase.name, tasks: jobs, timeout: '30m' });
      }
      if (steps.length > 0) phases.push({ name: toDnsLabel(phase.name) || phase.name, strategy: 'serial', steps });
    }
    if (phases.length === 0) {
      this.log.untranslated('IMPORT_DCOS_PLAN_EMPTY', p.at, `plan ${p.name}: nothing is left to run; left out`);
      return undefined;
    }
    return { strategy: this.planStrategy(p), phases };
  }

  /** A plan's strategy orders its phases; Baton's canary strategies do so with the DC/OS semantics (docs/operations.md). */
  private planStrategy(p: PlanSpec): PlanDecl['strategy'] {
    const s = p.strategy.toLowerCase();
    if (s === 'serial' || s === 'parallel') return s;
    if (s === 'serial-canary' || s === 'parallel-canary') {
      this.log.mapped('IMPORT_DCOS_CANARY', p.at, `plan ${p.name}: strategy ${s} is kept: the first phase runs, the plan waits for \`baton plan continue\`, the second runs and waits again, then the rest run ${s.startsWith('parallel') ? 'in parallel' : 'in order'}`);
      return s;
    }
    this.log.error('IMPORT_DCOS_STRATEGY', p.at, `plan ${p.name}: unknown strategy ${JSON.stringify(p.strategy)} (serial, parallel, serial-canary or parallel-canary)`);
    return 'serial';
  }
}
