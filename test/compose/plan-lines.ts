/** Framework text for composition tests: `plans:` with a deploy and an update plan of one phase `main` holding `steps`. */
export const deployAndUpdatePlans = (steps: string[]): string[] =>
  ['plans:', ...['deploy', 'update'].flatMap((p) => [`  ${p}:`, '    phases:', '      - name: main', '        steps:', ...steps.map((s) => `          - ${s}`)])];

const API = 'apiVersion: baton.dev/v1alpha1';

/** The ConfigMap the `store` framework makes: `<instance>-store` holding SIZE. */
export const STORE_CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>-store\ndata:\n  size: "<%= params.SIZE %>"\n';

/** The child framework of composition tests, `store` 1.0.0: one Apply step of `template` (its ConfigMap by default), a SIZE of at least 1. */
export const storeFramework = (template = STORE_CONFIGMAP): Record<string, string> => ({
  'frameworks/store/1.0.0/framework.yaml': [API, 'kind: Framework', 'name: store', 'version: 1.0.0', 'tasks:', '  - { name: main, kind: Apply, resources: [cm.yaml.ejs] }', ...deployAndUpdatePlans(['{ name: main, tasks: [main] }']), ''].join('\n'),
  'frameworks/store/1.0.0/params.yaml': '- { name: SIZE, type: integer, minimum: 1 }\n',
  'frameworks/store/1.0.0/templates/cm.yaml.ejs': template,
});
