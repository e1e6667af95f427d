// Signed transactions handed to the node through a viem client, one at a time.
import type { Hex, PublicClient } from 'viem'
import { isAlreadyKnown } from './nodeRefusals.ts'
import type { BroadcastMany } from './relayerContext.ts'

/** Broadcasts a signed transaction; a node that already has it counts as accepted. */
export async function broadcastRaw(client: PublicClient, rawTransaction: Hex): Promise<void> {
  try {
    await client.sendRawTransaction({ serializedTransaction: rawTransaction })
  } catch (err) {
    if (isAlreadyKnown(err)) return
    throw err
  }
}

/** Broadcasts in order, each after the previous one's answer. */
export function broadcastOneByOne(client: PublicClient): BroadcastMany {
  return async (rawTransactions) => {
    const answers: PromiseSettledResult<unknown>[] = []
    for (const serializedTransaction of rawTransactions) {
      answers.push(
        await client.sendRawTransaction({ serializedTransaction }).then(
          (value): PromiseSettledResult<unknown> => ({ status: 'fulfilled', value }),
          (reason: unknown): PromiseSettledResult<unknown> => ({ status: 'rejected', reason }),
        ),
      )
    }
    return answers
  }
}
