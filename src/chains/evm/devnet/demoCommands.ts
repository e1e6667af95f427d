// The ready-to-paste commands printed when the devnet starts: one per seed status, signed
// executes (the demo sender's key is public: anvil's account #1) and account mode's (anvil #7's).
import type { Address, Hex } from 'viem'
import { encodeFunctionData, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { demoCounterArtifact } from '../../../contracts/demoCounterArtifact.ts'
import { intentTypedData } from '../intentTypedData.ts'
import { demoAccountCommands } from './demoAccountCommands.ts'
import type { Demo } from './seedDemo.ts'

export type DemoCommandsParameters = {
  baseUrl: string
  /** The id the commands send in X-Chain-Id (decimal). */
  chainId: string
  executor: Address
  senderKey: Hex
  demo: Demo
  /** Sent with every execute command: execute is priced, and a request with a key is not charged. */
  apiKey?: string | undefined
  /** The x402 price of execute: adds a keyless execute (402 0x55) and a paid one (@x402/fetch). */
  price?: { network: string; asset: Address; label: string } | undefined
  /** Account mode's commands (the demo agent's own EOA): its key, its session key and its account nonce now. */
  account?: { agentKey: Hex; sessionKey: Hex; agentNonce: number; recipient: Address } | undefined
}

export async function demoCommands({
  baseUrl,
  chainId,
  executor,
  senderKey,
  demo,
  apiKey,
  price,
  account,
}: DemoCommandsParameters): Promise<string> {
  const increment = encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] })
  const fail = encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'fail', args: ['no'] })
  const fields = (overrides: Partial<Record<string, string>>) => ({
    sender: demo.sender,
    target: demo.counter,
    data: increment as string,
    value: '0',
    nonce: '0',
    validAfter: '0',
    validBefore: '0',
    policyId: demo.policies.open as string,
    ...overrides,
  })
  const intent = (overrides: Partial<Record<string, string>>) => JSON.stringify(fields(overrides))
  const signed = async (overrides: Partial<Record<string, string>>) => {
    const f = fields(overrides)
    const typed = intentTypedData({
      chainId: Number(chainId),
      executor,
      intent: {
        ...f,
        data: f.data as Hex,
        policyId: f.policyId as Hex,
        value: BigInt(f.value),
        nonce: BigInt(f.nonce),
        validAfter: BigInt(f.validAfter),
        validBefore: BigInt(f.validBefore),
      },
    })
    const signature = await privateKeyToAccount(senderKey).signTypedData(typed)
    return JSON.stringify({ ...f, signature })
  }
  const curl = (path: string, body: string, chain = chainId, key = path === '/intents/execute' ? apiKey : undefined) =>
    `curl -i -X POST ${baseUrl}${path} -H 'Content-Type: application/json' -H 'X-Chain-Id: ${chain}'${key ? ` -H 'Authorization: Bearer ${key}'` : ''} -d '${body}'`

  const lines: Array<[string, string]> = [
    ['200 SUCCESS (0x01): a valid intent', curl('/intents/validate', intent({}))],
    ['403 DISALLOWED (0x10): a selector the policy does not allow', curl('/intents/validate', intent({ data: fail }))],
    [
      '402 INSUFFICIENT_FUNDS (0x54): value above the policy cap',
      curl('/intents/validate', intent({ value: parseEther('5').toString() })),
    ],
    ['410 TOO_LATE (0x21): validBefore in the past', curl('/intents/validate', intent({ validBefore: '1' }))],
    ['202 TOO_EARLY (0x20): validAfter in the future', curl('/intents/validate', intent({ validAfter: '4102444800' }))],
    [
      '421 UNSUPPORTED_CHAIN (0xA2): a chain this gateway does not serve',
      curl('/intents/validate', intent({}), '8453'),
    ],
    [
      '421 UNSUPPORTED_CHAIN (0xA2): the policy allows only chain 1',
      curl('/intents/validate', intent({ policyId: demo.policies.mainnetOnly })),
    ],
    [
      "401 SIGNATURE_REQUIRED (0xE5): execute without the sender's signature (the body carries the typed data to sign)",
      curl('/intents/execute', intent({ nonce: '1' })),
    ],
    [
      '200 EXECUTED (0x11): execute, signed by the demo sender (run it twice: the second replays it, 200 with "replayed": true, nothing sent)',
      curl('/intents/execute', await signed({ nonce: '1' })),
    ],
  ]
  if (account)
    lines.push(
      ...(await demoAccountCommands({
        chainId: Number(chainId),
        demo,
        ...account,
        execute: (body) => curl('/intents/execute', body),
      })),
    )
  if (price) {
    const paid = await signed({ nonce: '2' })
    lines.push(
      [
        `402 FUNDS_REQUESTED (0x55): the same kind of execute without an API key: the gateway's x402 price (${price.label}) is in PAYMENT-REQUIRED`,
        curl('/intents/execute', paid, chainId, ''),
      ],
      [
        `200 EXECUTED (0x11): that intent paid with x402 by the unmodified @x402/fetch client (the demo payer, anvil #4, signs an EIP-3009 authorization; PAYMENT-RESPONSE names the settlement)`,
        `node scripts/payForExecute.mjs ${baseUrl} ${price.network} ${price.asset} '${paid}'`,
      ],
    )
  }
  return lines.map(([what, cmd]) => `# ${what}\n${cmd}\n`).join('\n')
}
