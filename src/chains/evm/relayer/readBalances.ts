// Each key's balance against what one execution may cost: a key that cannot pay is set aside
// until it is funded again.
import type { RelayerPoolContext } from './relayerPoolContext.ts'

export async function readBalances({ members, client, minBalance, log }: RelayerPoolContext): Promise<void> {
  const least = await minBalance()
  await Promise.all(
    members.map(async (member) => {
      const balance = await client.getBalance({ address: member.account.address })
      const funded = balance >= least
      if (funded !== member.funded) {
        if (funded)
          log.info(
            { relayer: member.account.address, balance: balance.toString() },
            'relayer key funded again: back in use',
          )
        else
          log.warn(
            { relayer: member.account.address, balance: balance.toString(), needed: least.toString() },
            'relayer key cannot pay for one execution: set aside until it is funded',
          )
      }
      member.funded = funded
    }),
  )
}
