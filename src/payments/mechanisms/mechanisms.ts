// The payment families' mechanisms, one per family of paymentFamilies.ts and in its order, loaded
// when this module is (only a gateway that takes payments imports it, and x402's packages with it).
import { paymentFamilies } from './paymentFamilies.ts'
import type { PaymentMechanism } from './paymentMechanism.ts'

export const paymentMechanisms: readonly PaymentMechanism[] = await Promise.all(
  paymentFamilies.map((family) => family.loadMechanism()),
)

/** The mechanism of a CAIP-2 network, by its namespace; undefined for a family none pays on. */
export function mechanismOf(network: string): PaymentMechanism | undefined {
  const namespace = network.slice(0, network.indexOf(':'))
  return paymentMechanisms.find((m) => m.namespace === namespace)
}
