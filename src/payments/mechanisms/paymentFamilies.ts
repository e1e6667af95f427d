// The payment families' own settings (PaymentFamilySettings: prices on their networks, the
// facilitator's key for them), listed in the order of mechanisms.ts and handed to loadConfig by
// src/runtimes.ts. Kept apart from the mechanisms so that reading the configuration loads no x402
// or Solana package (a gateway without prices never does); mechanisms.test.ts holds the two lists
// in step.
import type { PaymentFamilySettings } from '../../config/paymentsConfig.ts'
import { evmPaymentSettings } from './evm/evmPaymentSettings.ts'
import { svmPaymentSettings } from './svm/svmPaymentSettings.ts'

export const paymentFamilies: readonly PaymentFamilySettings[] = [evmPaymentSettings, svmPaymentSettings]
