export type { ApiVerb, FaultAdmin, FaultDecision, RequestInfo, RequestInterceptor } from './types.js';
export { createFaultInjector, type FaultInjector, type FaultInjectorOptions, type FaultRuleState } from './injector.js';
export { parseFaultRules, parseFaultSpec, FaultRuleError, type FaultRule, type FaultRuleInput } from './rules.js';
