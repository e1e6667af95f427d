// The EVM payment family (eip155 networks, the exact scheme): its settings, read with the
// configuration, and its mechanism, loaded with payments (paymentFamilies.ts lists it).
import type { PaymentFamily } from '../paymentMechanism.ts'
import { evmPaymentSettings } from './evmPaymentSettings.ts'

export const evmPaymentFamily: PaymentFamily = {
  ...evmPaymentSettings,
  loadMechanism: async () => (await import('./exactEvm.ts')).exactEvm,
}
