// viem's built-in chain definitions: the last resort for endpoints, and a source of names. The
// whole table (~17 MB resident) is loaded on first use only, when endpoints are looked for; names
// come from viemChainNames.ts, generated from the same table (npm run build:chain-names).
import type { Chain } from 'viem'
import { viemChainNames } from './viemChainNames.ts'

export type ChainName = { name: string; nativeCurrency: { name: string; symbol: string; decimals: number } }

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

/** A chain's name and currency as viem's table has them, without loading the table. */
export function findViemChainName(chainId: number): ChainName | undefined {
  const entry = viemChainNames[chainId]
  return entry && { name: entry[0], nativeCurrency: { name: entry[1], symbol: entry[2], decimals: entry[3] } }
}

/** Every chain's name and currency from viem's table, in the form viemChainNames.ts holds. */
export async function collectViemChainNames(): Promise<Record<number, [string, string, string, number]>> {
  await findViemChain(0)
  const names: Record<number, [string, string, string, number]> = {}
  for (const [id, chain] of [...(await byId!)].sort((a, b) => a[0] - b[0]))
    names[id] = [chain.name, chain.nativeCurrency.name, chain.nativeCurrency.symbol, chain.nativeCurrency.decimals]
  return names
}
