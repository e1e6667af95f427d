// The signature the gateway expects in an intent's `signature` field, made locally.
import { bytesToHex, type Hex, hexToBytes } from 'viem'
import type { ChainDescription } from './chainDescription.ts'
import { evmTypedData } from './evm/evmTypedData.ts'
import { GatewayClientError } from './gatewayClientError.ts'
import { hashIntent } from './hashIntent.ts'
import type { AnyIntentInput } from './intentInput.ts'
import type { IntentSigner } from './intentSigner.ts'
import { toIntentBody } from './toIntentBody.ts'

export type SignIntentParameters = {
  intent: AnyIntentInput
  /** The chain as GET /chains/{chainId} describes it (client.getChain). */
  chain: Pick<ChainDescription, 'chainId' | 'chainType' | 'contracts' | 'signing'> & { reference?: string | undefined }
  /** The sender's key, or a delegate's (a session key the intent's policy names). */
  signer: IntentSigner
}

/**
 * EVM executor mode: the EIP-712 signature of the intent under the chain's domain (name
 * IntentExecutor, version 1, chain id, executor). EVM account mode: under the sender's account
 * domain (name IntentAccount, version 1, chain id, the sender), an Intent or a BatchIntent; a
 * session key signs the same typed data. Solana: the Ed25519 signature of the 32-byte intent
 * hash. Sui intents are signed with a Sui wallet's signPersonalMessage of suiIntentBytes(intent).
 */
export async function signIntent({ intent, chain, signer }: SignIntentParameters): Promise<Hex> {
  const { signature: _, authorization: __, ...unsigned } = intent
  const body = toIntentBody(unsigned)
  switch (chain.chainType) {
    case 'evm': {
      if (!('signTypedData' in signer)) throw wrongSigner(chain.chainId, 'a viem account (LocalAccount)')
      return signer.signTypedData(evmTypedData(body, chain) as Parameters<typeof signer.signTypedData>[0])
    }
    case 'solana': {
      if (!('signMessage' in signer) || signer.chainType !== 'solana')
        throw wrongSigner(chain.chainId, 'a Solana signer (createSolanaSigner)')
      const hash = hashIntent(body, chain)
      return bytesToHex(await signer.signMessage(hexToBytes(hash)))
    }
    default:
      throw new GatewayClientError(`Signing intents for ${chain.chainType} chains is not supported by this client`, {
        code: 'INVALID_ARGUMENT',
        details: "sign suiIntentBytes(intent) with a Sui wallet's signPersonalMessage",
      })
  }
}

function wrongSigner(chainId: string, needed: string) {
  return new GatewayClientError(`Chain ${chainId} needs ${needed} to sign intents`, { code: 'INVALID_ARGUMENT' })
}
