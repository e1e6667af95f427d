// The two transactions the gateway sends the Move module, built fully offline (every object
// reference, gas setting and argument given) so that the bytes are exactly what is simulated,
// signed and journaled. Arguments are pure values: the intent's fields, then the signature.
import { Inputs, Transaction } from '@mysten/sui/transactions'
import type { Intent } from '../../ports/intent.ts'
import { type SharedObject, type SuiDeployment, suiIntentModule } from './suiIntentModule.ts'

export type SuiObjectRef = { objectId: string; version: string; digest: string }

export type SuiGas = { price: bigint; budget: bigint; payment: SuiObjectRef[] }

/** Validate is simulated with checks off: nothing is charged, so no gas coin is needed. */
export const validateGas = { price: 1000n, budget: 50_000_000n } as const

export type BuildSuiValidateParameters = {
  deployment: SuiDeployment
  policy: SharedObject
  intent: Intent
  sender: string
}

export type BuildSuiExecuteParameters = BuildSuiValidateParameters & {
  /** The sender's serialized signature (flag || signature || public key), empty when the sender sends itself. */
  signature: Uint8Array
  gas: SuiGas
}

/** validate(hub, policy, clock, sender, target, value, nonce, valid_after, valid_before): u8 */
export function buildSuiValidateTransaction({
  deployment,
  policy,
  intent,
  sender,
}: BuildSuiValidateParameters): Promise<Uint8Array> {
  const tx = intentCall(suiIntentModule.validate, { deployment, policy, intent, mutable: false })
  tx.setSender(sender)
  tx.setGasPrice(validateGas.price)
  tx.setGasBudget(validateGas.budget)
  tx.setGasPayment([])
  tx.setExpiration({ None: true })
  return tx.build()
}

/** execute(hub, policy, clock, sender, target, value, nonce, valid_after, valid_before, signature, ctx) */
export function buildSuiExecuteTransaction({
  deployment,
  policy,
  intent,
  sender,
  signature,
  gas,
}: BuildSuiExecuteParameters): Promise<Uint8Array> {
  const tx = intentCall(suiIntentModule.execute, { deployment, policy, intent, mutable: true, signature })
  tx.setSender(sender)
  tx.setGasOwner(sender)
  tx.setGasPrice(gas.price)
  tx.setGasBudget(gas.budget)
  tx.setGasPayment(gas.payment)
  tx.setExpiration({ None: true })
  return tx.build()
}

export type BuildSuiSponsoredParameters = BuildSuiValidateParameters & { sponsor: string; gas: SuiGas }

/**
 * Account mode, sponsored: the same execute with the agent (the intent's sender) as the
 * transaction's sender, so the module takes the transaction's own signer for the sender and the
 * signature argument is empty; the relayer owns and pays the gas. One Move call, no GasCoin.
 */
export function buildSuiSponsoredTransaction({
  deployment,
  policy,
  intent,
  sponsor,
  gas,
}: Omit<BuildSuiSponsoredParameters, 'sender'>): Promise<Uint8Array> {
  const tx = intentCall(suiIntentModule.execute, {
    deployment,
    policy,
    intent,
    mutable: true,
    signature: new Uint8Array(),
  })
  tx.setSender(intent.sender)
  tx.setGasOwner(sponsor)
  tx.setGasPrice(gas.price)
  tx.setGasBudget(gas.budget)
  tx.setGasPayment(gas.payment)
  tx.setExpiration({ None: true })
  return tx.build()
}

function intentCall(
  fn: string,
  {
    deployment,
    policy,
    intent,
    mutable,
    signature,
  }: { deployment: SuiDeployment; policy: SharedObject; intent: Intent; mutable: boolean; signature?: Uint8Array },
): Transaction {
  const tx = new Transaction()
  const shared = (o: SharedObject, isMutable: boolean) =>
    tx.object(
      Inputs.SharedObjectRef({
        objectId: o.objectId,
        initialSharedVersion: o.initialSharedVersion,
        mutable: isMutable,
      }),
    )
  const args = [
    shared(deployment.hub, mutable),
    shared(policy, mutable),
    shared(suiIntentModule.clock, false),
    tx.pure.address(intent.sender),
    tx.pure.address(intent.target),
    tx.pure.u64(intent.value),
    tx.pure.u64(intent.nonce),
    tx.pure.u64(intent.validAfter),
    tx.pure.u64(intent.validBefore),
  ]
  if (signature) args.push(tx.pure.vector('u8', [...signature]))
  tx.moveCall({ target: `${deployment.packageId}::${suiIntentModule.module}::${fn}`, arguments: args })
  return tx
}
