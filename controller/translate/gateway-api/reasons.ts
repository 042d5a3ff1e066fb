// The Gateway API translator's diagnostic reasons live with the Ingress ones (shared/reasons.ts), so one golden
// check covers them all.
export { GatewayReason } from '../shared/reasons.js';
