/** A framework for operator tests: a deploy plan whose middle step waits on a gate, and a canary rollout. */
import { API } from '../sync/fixtures.js';

export function controlFramework(): Record<string, string> {
  const dir = 'frameworks/ctl/1.0.0';
  const nodes = ['a', 'b', 'c', 'd'];
  const files: Record<string, string> = {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: ctl', 'version: 1.0.0', 'appVersion: "1"',
      'tasks:',
      '  - { name: config, kind: Apply, resources: [config.yaml.ejs] }',
      '  - { name: gate, kind: Apply, resources: [gate.yaml.ejs] }',
      '  - { name: after, kind: Apply, resources: [after.yaml.ejs] }',
      ...nodes.map((n) => `  - { name: node-${n}, kind: Apply, resources: [node-${n}.yaml.ejs] }`),
      'plans:',
      '  deploy:',
      '    phases:',
      '      - { name: one, steps: [{ name: config, tasks: [config] }] }',
      '      - { name: two, steps: [{ name: gate, tasks: [gate] }] }',
      '      - { name: three, steps: [{ name: after, tasks: [after] }] }',
      '  rollout:',
      '    phases:',
      '      - name: nodes',
      '        strategy: serial-canary',
      '        steps:',
      ...nodes.map((n) => `          - { name: ${n}, tasks: [node-${n}] }`),
      '',
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: VALUE, type: string, default: v }\n',
    [`${dir}/templates/config.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n',
    [`${dir}/templates/after.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + "-after" %>\ndata:\n  value: <%= params.VALUE %>\n',
    [`${dir}/templates/gate.yaml.ejs`]: [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: <%= "gate-" + instance.name %>', 'spec:', '  replicas: 0',
      '  selector: { matchLabels: { app: <%= instance.name %> } }', '  template:', '    metadata:', '      labels: { app: <%= instance.name %> }',
      '    spec: { containers: [{ name: c, image: "nginx:1.27" }] }', '',
    ].join('\n'),
  };
  for (const n of nodes) files[`${dir}/templates/node-${n}.yaml.ejs`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + "-node-${n}" %>\ndata:\n  value: <%= params.VALUE %>\n`;
  return files;
}

export function ctlInstance(extra: string[] = [], value = 'v'): string {
  return [API, 'kind: Instance', 'framework: ctl', 'version: 1.0.0', 'params:', `  VALUE: ${value}`, ...extra, ''].join('\n');
}
