// @intent-gateway/client: a typed client of Intent Gateway, and the helpers that hash and sign
// intents exactly as the gateway and its contracts do.

export type { AccountState } from './accountState.ts'
export { actionFor } from './actionFor.ts'
export type { ChainDescription, HashTarget } from './chainDescription.ts'
export {
  type CallOptions,
  createGatewayClient,
  type GatewayClient,
  type GatewayClientOptions,
  type SendOptions,
  type StatusCodeEntry,
  type WaitOptions,
} from './createGatewayClient.ts'
export { batchIntentTypes } from './evm/batchIntentTypes.ts'
export { evmTypedData } from './evm/evmTypedData.ts'
export { intentTypes } from './evm/intentTypes.ts'
export { GatewayClientError, type GatewayClientErrorCode } from './gatewayClientError.ts'
export type { GatewayAction, GatewayResult } from './gatewayResult.ts'
export { hashIntent } from './hashIntent.ts'
export type { IntentEvent, IntentEventType } from './intentEvent.ts'
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
export type { EvmIntentSigner, IntentSigner, SolanaIntentSigner } from './intentSigner.ts'
export type { PaymentOptions } from './paymentOptions.ts'
export { type SignAccountAuthorizationParameters, signAccountAuthorization } from './signAccountAuthorization.ts'
export { type SignIntentParameters, signIntent } from './signIntent.ts'
export { createSolanaSigner } from './solana/createSolanaSigner.ts'
export { signAccountMessage } from './solana/signAccountMessage.ts'
export { solanaIntentBytes } from './solana/solanaIntentBytes.ts'
export { suiIntentBytes } from './sui/suiIntentBytes.ts'
export { maxBatchCalls, toIntentBody } from './toIntentBody.ts'
