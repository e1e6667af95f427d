// The payment families, named once: a new family is a room of payments/mechanisms/ whose index.ts
// exports a PaymentFamily (paymentMechanism.ts), and a line here. Their settings are read with the
// configuration (src/runtimes.ts hands this list to loadConfig); their mechanisms, and x402's
// packages with them, load only when the gateway takes payments (mechanisms.ts).
import { evmPaymentFamily } from './evm/index.ts'
import type { PaymentFamily } from './paymentMechanism.ts'
import { svmPaymentFamily } from './svm/index.ts'

export const paymentFamilies: readonly PaymentFamily[] = [evmPaymentFamily, svmPaymentFamily]
