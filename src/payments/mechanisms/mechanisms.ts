// The payment families, named once: a new family is a room of payments/mechanisms/ exporting a
// PaymentMechanism and a line here.
import { exactEvm } from './evm/exactEvm.ts'
import type { PaymentMechanism } from './paymentMechanism.ts'
import { exactSvm } from './svm/exactSvm.ts'

export const paymentMechanisms: readonly PaymentMechanism[] = [exactEvm, exactSvm]

/** The mechanism of a CAIP-2 network, by its namespace; undefined for a family none pays on. */
export function mechanismOf(network: string): PaymentMechanism | undefined {
  const namespace = network.slice(0, network.indexOf(':'))
  return paymentMechanisms.find((m) => m.namespace === namespace)
}
