/**
 * Tenancy: baton.yaml `tenants` decide which instance files belong to whom, which frameworks,
 * namespaces and kinds they may use, and which ServiceAccount the agent impersonates for them.
 * Pure rules; validate, preview and the agent call them on what they loaded and rendered.
 */
export { DEFAULT_TENANT_KINDS, impersonationFor, instanceViolations, kindMatches, planViolations, tenantOf, type InstanceFacts, type TenantMatch } from './rules.js';
export { globToRegExp, matchesAny } from './glob.js';
