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
/**
 * `<namespace>/<instance>` of the one instance that owns the object: the engine refuses to apply an
 * object another instance owns, and pruning and removal never delete one (docs/render.md, ownership).
 */
export const ANNOTATION_OWNER = 'baton.dev/owner';

/** The owner value of an instance. */
export function ownerValue(instance: { namespace: string; name: string }): string {
  return `${instance.namespace}/${instance.name}`;
}

/**
 * The instance that owns a live object: its owner annotation, else (objects applied before the
 * annotation existed) the instance label of a Baton-managed namespaced object in that namespace.
 * Undefined when nothing says (not Baton's, or a cluster-scoped object without the annotation).
 */
export function ownerOfLive(metadata: { namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }): string | undefined {
  const annotated = metadata.annotations?.[ANNOTATION_OWNER];
  if (annotated !== undefined) return annotated;
  const label = metadata.labels?.[LABEL_INSTANCE];
  if (metadata.labels?.[LABEL_MANAGED_BY] !== MANAGED_BY_VALUE || label === undefined || metadata.namespace === undefined) return undefined;
  return `${metadata.namespace}/${label}`;
}

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
