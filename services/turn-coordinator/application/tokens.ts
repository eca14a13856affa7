/** Nest injection token of the deciders' configuration (`TurnDomainConfig`). */
export const TURN_DOMAIN_CONFIG = Symbol('TURN_DOMAIN_CONFIG');
