/**
 * The label and annotation keys Baton adds to every rendered object. The plan engine uses them for
 * ownership (which instance owns an object) and pruning (what an instance no longer renders).
 */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'baton';
export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_FRAMEWORK_VERSION = 'baton.dev/framework-version';

export const ANNOTATION_FRAMEWORK_VERSION = 'baton.dev/framework-version';
export const ANNOTATION_PLAN = 'baton.dev/plan';
export const ANNOTATION_PHASE = 'baton.dev/phase';
export const ANNOTATION_STEP = 'baton.dev/step';
export const ANNOTATION_CONFIG_HASH = 'baton.dev/config-hash';

/** A label value must be at most 63 characters of [A-Za-z0-9._-], starting and ending alphanumeric. */
export function labelValue(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 63);
  return cleaned.replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9]+$/, '');
}

export function standardLabels(framework: string, instance: string, version: string): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
    [LABEL_NAME]: labelValue(framework),
    [LABEL_INSTANCE]: labelValue(instance),
    [LABEL_FRAMEWORK_VERSION]: labelValue(version),
  };
}

/** The stable subset for selectors: never changes across framework versions. */
export function selectorLabels(framework: string, instance: string): Record<string, string> {
  return { [LABEL_NAME]: labelValue(framework), [LABEL_INSTANCE]: labelValue(instance) };
}
