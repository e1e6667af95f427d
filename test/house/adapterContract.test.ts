// The ChainAdapter contract (test/support/adapterContract.ts) run against each runtime's adapter
// over its real chain: EVM on anvil with the reference contracts, Solana on LiteSVM with the
// program deployed through the loader, Sui against the local gRPC stand-in (which runs no Move:
// the module's answers there are scripted). One chain per runtime, shared by its cases.
import { adapterContract } from '../support/adapterContract.ts'
import { makeEvmWorld } from '../support/adapterContractEvm.ts'
import { makeSolanaWorld } from '../support/adapterContractSolana.ts'
import { makeSuiWorld } from '../support/adapterContractSui.ts'

adapterContract('EVM (anvil)', makeEvmWorld)
adapterContract('Solana (LiteSVM)', makeSolanaWorld)
adapterContract('Sui (gRPC stand-in)', makeSuiWorld)
