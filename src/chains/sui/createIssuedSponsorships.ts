// Account mode's issued sponsorships (the agent as sender, the relayer as gas owner), by intent
// hash: the relayer signs as sponsor only TransactionData byte-identical to one it issued here.
// Kept in this process (an agent sends its signature back to the instance that issued the bytes;
// another answers 401 0xE5 with bytes of its own and signs nothing). Bounded: when full, the
// oldest goes first and its gas coin, never signed for, is handed back for the next sponsorship,
// so unsigned requests can neither grow the map nor make the relayer split coins without limit.
import type { SuiObjectRef } from './buildSuiTransaction.ts'

export type IssuedSponsorship = {
  /** The BCS TransactionData the agent signs, exactly as issued. */
  txBytes: Uint8Array
  /** Its digest (base58): the transaction id once sent. */
  digest: string
  /** The sponsorship's own gas coin, split off the relayer's for it. */
  gasCoin: SuiObjectRef
  budget: bigint
}

export type IssuedSponsorships = {
  get(intentHash: string): IssuedSponsorship | undefined
  put(intentHash: string, sponsorship: IssuedSponsorship): void
  /** Forgets a sponsorship the relayer signed: its coin is spent, never handed back. */
  consume(intentHash: string): void
  /** A coin of an evicted (never signed) sponsorship, free for the next one. */
  takeFreeCoin(): SuiObjectRef | undefined
  readonly size: number
}

export function createIssuedSponsorships({
  capacity = 1_000,
}: {
  capacity?: number | undefined
} = {}): IssuedSponsorships {
  const issued = new Map<string, IssuedSponsorship>()
  const free: SuiObjectRef[] = []
  return {
    get: (intentHash) => issued.get(intentHash),
    put(intentHash, sponsorship) {
      const previous = issued.get(intentHash)
      if (previous && previous.gasCoin.objectId !== sponsorship.gasCoin.objectId) free.push(previous.gasCoin)
      issued.delete(intentHash)
      issued.set(intentHash, sponsorship)
      while (issued.size > capacity) {
        const oldest = issued.keys().next().value as string
        free.push(issued.get(oldest)!.gasCoin)
        issued.delete(oldest)
      }
    },
    consume: (intentHash) => void issued.delete(intentHash),
    takeFreeCoin: () => free.shift(),
    get size() {
      return issued.size
    },
  }
}
