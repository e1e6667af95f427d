// viem's built-in chain definitions: the last resort for endpoints, and a source of names.
// Loaded on first use only (importing all of them takes about half a second).
import type { Chain } from 'viem'

let byId: Promise<Map<number, Chain>> | undefined

export async function findViemChain(chainId: number): Promise<Chain | undefined> {
  byId ??= import('viem/chains').then((chains) => {
    const map = new Map<number, Chain>()
    // Several definitions share an id (anvil, hardhat, foundry): the first one wins.
    for (const chain of Object.values(chains) as Chain[]) if (chain?.id && !map.has(chain.id)) map.set(chain.id, chain)
    return map
  })
  return (await byId).get(chainId)
}
