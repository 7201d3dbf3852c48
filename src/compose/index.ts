/**
 * Composition: what lets frameworks and instances build on each other. The one entry point for the
 * rest of Baton:
 * - generated values (`generate:` on a parameter): made once, kept in a Secret the instance owns,
 *   rotated only by a run's `rotate-generated` argument (generated/);
 * - `dependsOn` between instances: the graph checks (missing, cycle, tenancy) and whether a
 *   dependency is applied and healthy (depends/).
 */
export { ComposeError, type ComposeErrorCode } from './errors.js';
export { generateValue, placeholderValue } from './generated/generate.js';
export { generatedSecretRef, readGenerated } from './generated/store.js';
export { ROTATE_ARG, generatedParams, resolveGenerated, rotationOf, type GeneratedContext, type GeneratedValues, type Rotation } from './generated/resolve.js';
export { dependencyKey, dependencyProblems, instanceFileOf, keyOf, type InstanceKeyRef } from './depends/graph.js';
export { dependencyState, type DependencySource, type DependencyState } from './depends/readiness.js';
export { dependencyOrder, orderOfFiles, type OrderedInstance } from './depends/order.js';
