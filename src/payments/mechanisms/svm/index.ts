// The Solana payment family (solana networks, the exact scheme): its settings, read with the
// configuration, and its mechanism, loaded with payments (paymentFamilies.ts lists it).
import type { PaymentFamily } from '../paymentMechanism.ts'
import { svmPaymentSettings } from './svmPaymentSettings.ts'

export const svmPaymentFamily: PaymentFamily = {
  ...svmPaymentSettings,
  loadMechanism: async () => (await import('./exactSvm.ts')).exactSvm,
}
