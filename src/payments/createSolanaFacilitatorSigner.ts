// The in-process facilitator's Solana side: x402's own SVM facilitator signer on the gateway's
// trusted RPC of each Solana network, with two changes of ours. Its confirmation wait is bounded
// by the gateway's settlement timeout (x402 answers `settlement_pending` past it, never a failure),
// and it can tell beforehand which transaction id a payment's settlement will have: Ed25519 is
// deterministic, so the fee payer's signature of the payer's message is the settlement's id.
import { createKeyPairSignerFromPrivateKeyBytes, createSolanaRpc, getBase58Decoder, type KeyPairSigner, type Signature } from '@solana/kit'
import { decodeTransactionFromPayload, toFacilitatorSvmSigner, TransactionOnchainFailureError, type FacilitatorSvmSigner } from '@x402/svm'

export type SolanaFacilitatorSigner = {
  signer: FacilitatorSvmSigner
  /** Resolves once the key is derived: x402 reads the fee payer's address synchronously. */
  ready: Promise<unknown>
  settlementIdOf(transaction: string): Promise<string | undefined>
}

export function createSolanaFacilitatorSigner({
  secretKey,
  rpcUrls,
  confirmTimeoutMs,
  pollMs = 200,
}: {
  secretKey: Uint8Array
  rpcUrls: Record<string, string>
  confirmTimeoutMs: number
  pollMs?: number
}): SolanaFacilitatorSigner {
  const keyPair: Promise<KeyPairSigner> = createKeyPairSignerFromPrivateKeyBytes(secretKey.subarray(0, 32))
  const rpcs = Object.fromEntries(Object.entries(rpcUrls).map(([network, url]) => [network, createSolanaRpc(url)]))
  const base58 = getBase58Decoder()
  let inner: FacilitatorSvmSigner | undefined
  let address = ''
  const ready = keyPair.then((k) => {
    address = k.address
    inner = toFacilitatorSvmSigner(k, rpcs as never)
    return inner
  })
  const call = async <T>(fn: (s: FacilitatorSvmSigner) => Promise<T>) => fn(inner ?? (await ready))

  const signer: FacilitatorSvmSigner = {
    // x402 asks for the addresses synchronously (its supported kinds): answered once the key is derived.
    getAddresses: () => (address ? [address as never] : []),
    signTransaction: (transaction, feePayer, network) => call((s) => s.signTransaction(transaction, feePayer, network)),
    simulateTransaction: (transaction, network, options) => call((s) => s.simulateTransaction(transaction, network, options)),
    sendTransaction: (transaction, network) => call((s) => s.sendTransaction(transaction, network)),
    async confirmTransaction(signature, network) {
      const rpc = rpcs[network]
      if (!rpc) throw new Error(`no RPC for ${network}`)
      const deadline = Date.now() + confirmTimeoutMs
      for (;;) {
        const { value } = await rpc.getSignatureStatuses([signature as Signature]).send()
        const status = value[0]
        if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') {
          if (status.err) throw new TransactionOnchainFailureError(`Transaction failed onchain: ${JSON.stringify(status.err, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`)
          return
        }
        if (Date.now() >= deadline) throw new Error(`settlement ${signature} not confirmed within ${confirmTimeoutMs} ms`)
        await new Promise((resolve) => setTimeout(resolve, pollMs))
      }
    },
    getTokenAccountBalance: (account, network) => call((s) => s.getTokenAccountBalance!(account, network)),
  }

  return {
    signer,
    ready,
    async settlementIdOf(transaction) {
      try {
        const key = await keyPair
        const tx = decodeTransactionFromPayload({ transaction })
        const [signatures] = await key.signMessages([{ content: tx.messageBytes, signatures: tx.signatures } as never])
        const own = signatures?.[key.address]
        return own ? base58.decode(own) : undefined
      } catch {
        return undefined
      }
    },
  }
}
