// Whether a transaction's commands use the gas coin (`GasCoin` as an argument anywhere): a
// sponsored transaction that did could move the sponsor's SUI (split it, transfer it, pass it to a
// Move function), so the relayer never signs one as sponsor. Walks every command's arguments
// whatever their kind, so a command kind added later cannot hide it.
import { Transaction } from '@mysten/sui/transactions'

/** The index of the first command that uses GasCoin, or undefined. */
export function findGasCoinUse(txBytes: Uint8Array): number | undefined {
  const { commands } = Transaction.from(txBytes).getData()
  const index = commands.findIndex((command) => usesGasCoin(command))
  return index === -1 ? undefined : index
}

function usesGasCoin(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(usesGasCoin)
  if (value === null || typeof value !== 'object') return false
  const record = value as Record<string, unknown>
  if (record.$kind === 'GasCoin' || 'GasCoin' in record) return true
  return Object.values(record).some(usesGasCoin)
}
