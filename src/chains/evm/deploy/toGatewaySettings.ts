// The gateway's settings for a deployment: EXECUTOR_ADDRESSES, VALIDATOR_ADDRESSES,
// REGISTRY_ADDRESSES, ACCOUNT_DELEGATE_ADDRESSES and BUNDLER_ADDRESSES (which sends a key's executions in
// bundles: README), each a JSON object keyed by CAIP-2 id, with
// the chains the operator already configures kept (a key naming the same chain in decimal is
// replaced, as loadConfig refuses a chain named twice).
import type { DeploymentPlan } from './planDeployment.ts'

export type GatewaySettings = {
  /** Setting name → its value (a JSON object as text). */
  values: Record<string, string>
  /** Settings whose chains already in the environment are kept. */
  merged: string[]
  /** Settings in the environment that could not be merged (not a JSON object), printed for this chain only. */
  notes: string[]
}

export function toGatewaySettings({
  chainId,
  addresses,
  current,
}: {
  chainId: string
  addresses: DeploymentPlan['addresses']
  current: Record<string, string | undefined>
}): GatewaySettings {
  const reference = chainId.slice('eip155:'.length)
  const notes: string[] = []
  const mergedNames: string[] = []
  const entries = [
    ['EXECUTOR_ADDRESSES', addresses.executor],
    ['VALIDATOR_ADDRESSES', addresses.validator],
    ['REGISTRY_ADDRESSES', addresses.registry],
    ['ACCOUNT_DELEGATE_ADDRESSES', addresses.accountDelegate],
    ['BUNDLER_ADDRESSES', addresses.bundler],
  ] as const
  const values: Record<string, string> = {}
  for (const [name, address] of entries) {
    let merged: Record<string, unknown> = {}
    const raw = current[name]
    if (raw) {
      try {
        const parsed: unknown = JSON.parse(raw)
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object')
        merged = Object.fromEntries(
          Object.entries(parsed).filter(([key]) => key.trim() !== chainId && key.trim() !== reference),
        )
        mergedNames.push(name)
      } catch {
        notes.push(`${name} in this environment is not a JSON object: printed for ${chainId} only`)
      }
    }
    values[name] = JSON.stringify({ ...merged, [chainId]: address })
  }
  return { values, merged: mergedNames, notes }
}
