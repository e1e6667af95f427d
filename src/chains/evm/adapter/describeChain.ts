// What the EVM adapter says of itself: GET /chains (contracts, relayer keys and their backends,
// endpoints, how intents are signed), start-up's contract check, and the typed data a sender signs.
import type { ChainDescription, PreflightResult, SigningRequest } from '../../../ports/chainAdapter.ts'
import type { AccountMode, Intent } from '../../../ports/intent.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { accountTypedData, eip712DomainTypes, intentDomain, intentTypedData, intentTypes } from '../intentTypedData.ts'
import type { EvmContext } from './evmContext.ts'

export function describeChain({
  chain,
  relayers,
  signerOf,
  state,
  pool,
  viemChain,
  confirmations,
}: EvmContext): ChainDescription {
  return {
    chainId: chain.chainId,
    chainType: 'evm',
    reference: chain.reference,
    name: chain.name,
    nativeCurrency: chain.nativeCurrency,
    contracts: {
      validator: chain.validator,
      executor: chain.executor,
      registry: chain.registry,
      ...(chain.accountDelegate ? { accountDelegate: chain.accountDelegate } : {}),
    },
    relayer: relayers?.addresses[0],
    relayers: relayers?.view().map((r) => ({ ...r, signer: signerOf.get(r.address.toLowerCase()) ?? 'local' })),
    available: !state.unavailableReason,
    unavailableReason: state.unavailableReason,
    endpoints: pool.endpoints(),
    signing: {
      domain: intentDomain({ chainId: viemChain.id, executor: chain.executor }),
      types: intentTypes,
      primaryType: 'Intent',
    },
    finality: {
      rule: 'depth',
      confirmations,
      description:
        confirmations <= 1
          ? 'final once mined (CONFIRMATIONS=1): a reorg seen later reopens the execution'
          : `final ${confirmations} blocks deep (CONFIRMATIONS): until then an execution answers 202 and a reorg reopens it`,
    },
  }
}

/** Starts the relayer pool, then checks that the validator, executor and registry have code. */
export async function preflight({ relayers, log, chain, client }: EvmContext): Promise<PreflightResult> {
  await relayers
    ?.start()
    .catch((err: unknown) =>
      log.warn({ err }, 'relayer leases or balances could not be read at start-up; tried again in the background'),
    )
  const contracts = { validator: chain.validator, executor: chain.executor, registry: chain.registry }
  try {
    const codes = await Promise.all(Object.values(contracts).map((address) => client.getCode({ address })))
    const missing = Object.entries(contracts)
      .filter((_, i) => !codes[i] || codes[i] === '0x')
      .map(([name, address]) => `${name} ${address}`)
    return missing.length === 0 ? { ok: true } : { ok: false, missing }
  } catch (err) {
    return { ok: false, unreachable: classifyRpcError(err, chain.chainId, 'code lookup').shortMessage }
  }
}

/** The EIP-712 typed data of an intent as JSON: integers as decimal strings, with the EIP712Domain type wallets' eth_signTypedData_v4 wants. */
export function signingRequest(
  { viemChain, chain }: EvmContext,
  intent: Intent,
  account?: AccountMode,
): SigningRequest {
  const decimal = (v: bigint) => v.toString()
  // Account mode: the account's own domain, { name: "IntentAccount", version: "1", chainId, verifyingContract: sender }; a batch signs its BatchIntent.
  if (account || intent.calls) {
    const typed = accountTypedData({ chainId: viemChain.id, intent })
    const { message } = typed
    const header = {
      nonce: decimal(message.nonce),
      validAfter: decimal(message.validAfter),
      validBefore: decimal(message.validBefore),
    }
    return {
      domain: typed.domain,
      types: { EIP712Domain: eip712DomainTypes, ...typed.types },
      primaryType: typed.primaryType,
      message:
        'calls' in message
          ? { ...message, ...header, calls: message.calls.map((c) => ({ ...c, value: decimal(c.value) })) }
          : { ...message, ...header, value: decimal(message.value) },
    }
  }
  const typedData = intentTypedData({ chainId: viemChain.id, executor: chain.executor, intent })
  const { message } = typedData
  return {
    domain: typedData.domain,
    types: { EIP712Domain: eip712DomainTypes, ...typedData.types },
    primaryType: typedData.primaryType,
    message: {
      ...message,
      value: message.value.toString(),
      nonce: message.nonce.toString(),
      validAfter: message.validAfter.toString(),
      validBefore: message.validBefore.toString(),
    },
  }
}
