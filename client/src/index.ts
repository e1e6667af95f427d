// @intent-gateway/client: a typed client of Intent Gateway, and the helpers that hash and sign
// intents exactly as the gateway and its contracts do.
export {
  createGatewayClient,
  type GatewayClient,
  type GatewayClientOptions,
  type CallOptions,
  type SendOptions,
  type WaitOptions,
  type StatusCodeEntry,
} from './createGatewayClient.ts'
export type { GatewayAction, GatewayResult } from './gatewayResult.ts'
export type { IntentEvent, IntentEventType } from './intentEvent.ts'
export { GatewayClientError, type GatewayClientErrorCode } from './gatewayClientError.ts'
export type {
  AnyIntentBody,
  AnyIntentInput,
  AuthorizationInput,
  BatchIntentBody,
  BatchIntentInput,
  CallBody,
  CallInput,
  ChainType,
  IntentAccountMeta,
  IntentAuthorization,
  IntentBody,
  IntentInput,
  IntentMode,
} from './intentInput.ts'
export type { AccountState } from './accountState.ts'
export type { ChainDescription, HashTarget } from './chainDescription.ts'
export type { EvmIntentSigner, IntentSigner, SolanaIntentSigner } from './intentSigner.ts'
export type { PaymentOptions } from './paymentOptions.ts'
export { hashIntent } from './hashIntent.ts'
export { signIntent, type SignIntentParameters } from './signIntent.ts'
export { signAccountAuthorization, type SignAccountAuthorizationParameters } from './signAccountAuthorization.ts'
export { toIntentBody, maxBatchCalls } from './toIntentBody.ts'
export { actionFor } from './actionFor.ts'
export { intentTypes } from './evm/intentTypes.ts'
export { batchIntentTypes } from './evm/batchIntentTypes.ts'
export { evmTypedData } from './evm/evmTypedData.ts'
export { solanaIntentBytes } from './solana/solanaIntentBytes.ts'
export { createSolanaSigner } from './solana/createSolanaSigner.ts'
export { signAccountMessage } from './solana/signAccountMessage.ts'
export { suiIntentBytes } from './sui/suiIntentBytes.ts'
