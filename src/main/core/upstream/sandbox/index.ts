// The sandbox module's public surface: how stdio upstreams are isolated (docs/isolation.md).
export { sandboxSupport, type SandboxSupport } from './detect'
export { networkSupport, type NetworkSupport } from './network'
export { launchSpec, wantsSandbox, type LaunchSpec, type SandboxRequest } from './launch'
export { grantRefusal, SandboxGrantError, type SandboxContext, type SandboxMode } from './plan'
export { sharePlanFacts } from './plan-facts'
export { isolationOf, profileOf } from './view'
export { egressProxy, startEgressProxy } from './egress-proxy'
export { launcherOf, looksLikeNetworkFailure, registryAccess } from './registries'
