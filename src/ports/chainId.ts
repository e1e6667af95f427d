// Chain ids as operators and agents write them: an EVM decimal id (`84532`) or CAIP-2
// (`eip155:84532`, `solana:<genesis-hash-prefix>`, `sui:mainnet`). Both forms name one chain.

/**
 * The runtimes' CAIP-2 namespaces and their chain types: one entry per runtime (its module in
 * src/runtimes.ts names the same pair). The schemas' chain-type enums are read from here.
 */
const runtimes = { eip155: 'evm', solana: 'solana', sui: 'sui' } as const

const caip2Pattern = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})$/
const decimalPattern = /^[1-9][0-9]{0,15}$/

/**
 * A namespace whose references follow a narrower rule than CAIP-2's: EIP-155 chain ids are
 * positive decimal integers (CAIP-2's eip155 namespace), which is also what lets a bare decimal
 * stand for `eip155:<id>`.
 */
const referenceRules: Record<string, { test(reference: string): boolean; rule: string }> = {
  eip155: {
    test: (reference) => decimalPattern.test(reference) && Number.isSafeInteger(Number(reference)),
    rule: 'is not an EVM chain id: the reference after eip155: must be a positive decimal integer',
  },
}

export type ChainType = (typeof runtimes)[keyof typeof runtimes]

/** Every chain type, in the order above. */
export const chainTypes = Object.values(runtimes) as readonly ChainType[]

export type ParsedChainId = {
  /** Canonical CAIP-2 form, used in responses and as the registry key. */
  caip2: string
  namespace: string
  reference: string
  /** The runtime, when the namespace is one the gateway knows. */
  chainType: ChainType | undefined
}

/** Returns the parsed id, or a message saying what is wrong with it. */
export function parseChainId(input: string): ParsedChainId | string {
  const text = input.trim()
  if (referenceRules.eip155!.test(text)) {
    return { caip2: `eip155:${text}`, namespace: 'eip155', reference: text, chainType: 'evm' }
  }
  const match = caip2Pattern.exec(text)
  if (!match) {
    return `"${truncate(text)}" is not a chain id: use an EVM chain id in decimal (84532) or CAIP-2 (eip155:84532)`
  }
  const [, namespace, reference] = match as unknown as [string, string, string]
  const narrower = referenceRules[namespace]
  if (narrower && !narrower.test(reference)) return `"${truncate(text)}" ${narrower.rule}`
  return {
    caip2: `${namespace}:${reference}`,
    namespace,
    reference,
    chainType: (runtimes as Record<string, ChainType>)[namespace],
  }
}

function truncate(text: string): string {
  return text.length > 64 ? `${text.slice(0, 61)}...` : text
}
