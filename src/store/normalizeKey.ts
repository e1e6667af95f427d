// One payment has one ledger key however its client spelt it: EVM addresses and hex nonces are
// kept lower-case; Solana's base58 addresses are case-sensitive and kept as they are.
import type { AuthorizationKey } from '../ports/paymentLedger.ts'

const lowerIfHex = (value: string) => (/^0x[0-9a-fA-F]*$/.test(value) ? value.toLowerCase() : value)

export function normalizeKey(key: AuthorizationKey): AuthorizationKey {
  return {
    network: key.network,
    asset: lowerIfHex(key.asset),
    payer: lowerIfHex(key.payer),
    nonce: key.nonce.toLowerCase() as AuthorizationKey['nonce'],
  }
}
