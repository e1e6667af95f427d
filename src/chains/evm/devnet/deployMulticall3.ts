// Puts Multicall3 at its canonical address on the devnet, as nearly every public EVM chain has
// it (anvil has none): the gateway folds concurrent validator reads into it.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Address, Hex } from 'viem'
import { multicall3Address } from '../createCallBatcher.ts'
import { createDevClients } from './deployContracts.ts'

export async function deployMulticall3({ rpcUrl, chainId }: { rpcUrl: string; chainId: number }): Promise<void> {
  const { publicClient } = createDevClients(rpcUrl, chainId)
  // Running the creation code in a call returns the runtime code it would deploy.
  const { data: runtime } = await publicClient.call({ data: await multicall3CreationCode() })
  if (!runtime || runtime.length < 100) throw new Error('Multicall3 creation code returned no runtime code')
  // anvil_setCode is not in a public client's RPC schema: viem's override names its parameters and result.
  await publicClient.request<{ Parameters: [Address, Hex]; ReturnType: null }>({
    method: 'anvil_setCode',
    params: [multicall3Address, runtime],
  })
}

/** The creation code viem ships for its deployless multicall (a module viem does not export by name). */
async function multicall3CreationCode(): Promise<Hex> {
  const viemRoot = dirname(createRequire(import.meta.url).resolve('viem/package.json'))
  const { multicall3Bytecode } = (await import(
    pathToFileURL(join(viemRoot, '_esm', 'constants', 'contracts.js')).href
  )) as { multicall3Bytecode?: Hex }
  if (!multicall3Bytecode)
    throw new Error(
      "viem no longer ships Multicall3's creation code where the devnet looks for it (viem/_esm/constants/contracts.js)",
    )
  return multicall3Bytecode
}
