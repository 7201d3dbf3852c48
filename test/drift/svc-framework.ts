/** A small framework for drift tests: every object is ready at once (no controllers needed). */
const API = 'apiVersion: baton.dev/v1alpha1';

/** A framework whose objects are ready at once: a ConfigMap, a Service (its type a parameter) and a PodDisruptionBudget. */
export function svcFramework(): Record<string, string> {
  const dir = 'frameworks/svc/1.0.0';
  return {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: svc', 'version: 1.0.0', 'appVersion: "1"',
      'tasks:',
      '  - { name: main, kind: Apply, resources: [config.yaml.ejs, service.yaml.ejs, pdb.yaml.ejs] }',
      '  - { name: marker, kind: Apply, resources: [marker.yaml.ejs] }',
      'plans:',
      '  deploy:',
      '    phases:',
      '      - name: main',
      '        steps:',
      '          - { name: app, tasks: [main] }',
      '  backup:',
      '    args: [{ name: LABEL, type: string }]',
      '    phases:',
      '      - name: snapshot',
      '        steps:',
      '          - { name: marker, tasks: [marker] }',
    ].join('\n'),
    [`${dir}/params.yaml`]: '- { name: GREETING, type: string, default: hello }\n- { name: SERVICE_TYPE, type: string, default: ClusterIP }\n',
    [`${dir}/templates/config.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>-config\ndata:\n  greeting: <%= params.GREETING %>\n',
    [`${dir}/templates/service.yaml.ejs`]: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: <%= instance.name %>\nspec:\n  type: <%= params.SERVICE_TYPE %>\n  selector:\n    app: <%= instance.name %>\n  ports:\n    - port: 80\n',
    [`${dir}/templates/pdb.yaml.ejs`]: 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: <%= instance.name %>\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app: <%= instance.name %>\n',
    [`${dir}/templates/marker.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>-backup\ndata:\n  at: "<%= plan.args.LABEL || \'now\' %>"\n',
  };
}

export function svcInstance(params: Record<string, string> = {}, sync = ''): string {
  const lines = [API, 'kind: Instance', 'framework: svc', 'version: 1.0.0'];
  if (Object.keys(params).length > 0) lines.push('params:', ...Object.entries(params).map(([k, v]) => `  ${k}: ${v}`));
  if (sync) lines.push(sync);
  return `${lines.join('\n')}\n`;
}

