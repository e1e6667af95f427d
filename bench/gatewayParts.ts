// Every part of the gateway's source the bench and the fault campaign use, in one place: src/ is
// being reorganised, and when a path moves it is fixed here and nowhere else. The gateway itself
// is only ever run as a process (dist/main.js or src/main.ts), never imported.

export { createDevClients } from '../src/chains/evm/devnet/deployContracts.ts'
export { devnetAccounts } from '../src/chains/evm/devnet/devnetAccounts.ts'
export { type Devnet, startDevnet } from '../src/chains/evm/devnet/startDevnet.ts'
export { toIntentTuple } from '../src/chains/evm/evmRuntime.ts'
export { intentTypedData } from '../src/chains/evm/intentTypedData.ts'
export { demoCounterArtifact } from '../src/contracts/demoCounterArtifact.ts'
export { intentExecutorArtifact } from '../src/contracts/intentExecutorArtifact.ts'
export { intentValidatorArtifact } from '../src/contracts/intentValidatorArtifact.ts'
export type { Intent } from '../src/ports/intent.ts'
/** The gateway's entry point, run as a process by the fault campaign (`node --import tsx <this>`). */
export const gatewayMain = new URL('../src/main.ts', import.meta.url).pathname
