/** Inline GitOps repository content for agent tests: a tiny framework whose objects are ready at once. */
export const API = 'apiVersion: baton.dev/v1alpha1';

export function webFramework(version = '1.0.0', extra = ''): Record<string, string> {
  const dir = `frameworks/web/${version}`;
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: web', `version: ${version}`, 'appVersion: "2.4"',
      'tasks:',
      '  - { name: main, kind: Apply, resources: [main.yaml.ejs] }',
      '  - { name: marker, kind: Apply, resources: [marker.yaml.ejs] }',
      'plans:',
      '  deploy:',
      '    phases:',
      '      - name: main',
      '        steps:',
      '          - { name: main, tasks: [main] }',
      '  backup:',
      '    phases:',
      '      - name: snapshot',
      '        steps:',
      '          - { name: marker, tasks: [marker] }',
      extra,
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: VALUE, type: string, default: v }\n- { name: REPLICAS, type: integer, default: 1, minimum: 1 }\n- { name: PASSWORD, type: string, default: hunter2-secret, sensitive: true }\n',
    [`${dir}/templates/main.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n  replicas: <%= String(params.REPLICAS) %>\n',
    [`${dir}/templates/marker.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + "-backup" %>\ndata:\n  label: <%= plan.args.LABEL || "none" %>\n',
  };
}

export function instance(params: Record<string, string | number> = {}, version = '1.0.0'): string {
  const lines = [API, 'kind: Instance', 'framework: web', `version: ${version}`];
  const entries = Object.entries(params);
  if (entries.length > 0) lines.push('params:', ...entries.map(([k, v]) => `  ${k}: ${typeof v === 'number' ? v : JSON.stringify(v)}`));
  return `${lines.join('\n')}\n`;
}
