// The Solana commands printed when the devnet starts: validate, one per status, and execute,
// signed (the demo sender's key is a public devnet key, so the signature is computed here) and
// unsigned, with the chain's CAIP-2 id.
import type { Address } from '@solana/kit'
import type { Intent } from '../../../ports/intent.ts'
import { ed25519Seed } from '../ed25519Seed.ts'
import { createSolanaRuntime } from '../solanaRuntime.ts'
import { agentTransferBody } from './agentTransferBody.ts'
import type { SolanaDemoAgent } from './seedDemoAgent.ts'
import type { SolanaDevnet } from './startSolanaDevnet.ts'

/** A PKCS#8 DER prefix for a raw 32-byte Ed25519 seed (RFC 8410), so that node:crypto can sign with it. */
const ed25519Pkcs8Prefix = '302e020100300506032b657004220420'

/**
 * Account mode, printed as a shell snippet: the execute without a signature (401 0xE5) gives the
 * transaction message, the agent signs it with its own key (a public devnet key: node:crypto signs
 * here), and the same intent with the signature runs: 1 DemoDollar from the agent's own token
 * account, the relayer paying the fee only.
 */
export function accountModeCommands({
  baseUrl,
  chainId,
  agent,
  apiKey,
  nonce = 1n,
}: {
  baseUrl: string
  chainId: string
  agent: SolanaDemoAgent
  apiKey?: string | undefined
  nonce?: bigint
}): string {
  const body = JSON.stringify(agentTransferBody(agent, { nonce }))
  const headers = `-H 'Content-Type: application/json' -H 'X-Chain-Id: ${chainId}'${apiKey ? ` -H 'Authorization: Bearer ${apiKey}'` : ''}`
  const seed = Buffer.from(agent.secretKey).toString('hex')
  const readMessage = `node -e 'let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>process.stdout.write(JSON.parse(s).signing.message))'`
  const signMessage = `node -e 'const c=require("node:crypto");const k=c.createPrivateKey({key:Buffer.from("${ed25519Pkcs8Prefix}"+process.argv[1],"hex"),format:"der",type:"pkcs8"});process.stdout.write("0x"+c.sign(null,Buffer.from(process.argv[2],"base64"),k).toString("hex"))'`
  return [
    `# account mode (agent as signer, relayer as fee payer): the demo agent ${agent.address} (no vault) sends 1 DemoDollar from its own token account; 401 0xE5 gives the transaction message, the agent signs it, then 200 EXECUTED (0x11)`,
    `BODY='${body}'`,
    `MESSAGE=$(curl -s -X POST ${baseUrl}/intents/execute ${headers} -d "$BODY" | ${readMessage})`,
    `SIGNATURE=$(${signMessage} ${seed} "$MESSAGE")`,
    // The same body with the signature added (bash strips its closing brace).
    `curl -i -X POST ${baseUrl}/intents/execute ${headers} -d ${'"${BODY%\\}},\\"signature\\":\\"$SIGNATURE\\"}"'}`,
    '',
  ].join('\n')
}

export function solanaDemoCommands({
  baseUrl,
  devnet,
  apiKey,
}: {
  baseUrl: string
  devnet: Pick<SolanaDevnet, 'chainId' | 'demo' | 'programId' | 'config'> &
    Partial<Pick<SolanaDevnet, 'payment' | 'payments' | 'rpcUrl'>>
  /** Sent with the execute commands when the gateway has API keys. */
  apiKey?: string | undefined
}): string {
  const { demo, chainId } = devnet
  const intent = (overrides: Partial<Record<string, string>>) =>
    JSON.stringify({
      sender: demo.sender,
      target: demo.target,
      data: `${demo.allowedPrefix}40420f0000000000`,
      value: '1000',
      nonce: '0',
      validAfter: '0',
      validBefore: '0',
      policyId: demo.policies.narrow,
      ...overrides,
    })
  const curl = (body: string, chain = chainId, action = 'validate') =>
    `curl -i -X POST ${baseUrl}/intents/${action} -H 'Content-Type: application/json' -H 'X-Chain-Id: ${chain}'${action === 'execute' && apiKey ? ` -H 'Authorization: Bearer ${apiKey}'` : ''} -d '${body}'`

  // Execute: the probe target echoes its data; the value (1000 lamports) goes to the first account.
  const executed = (nonce: bigint): Intent => ({
    sender: demo.sender,
    target: demo.target,
    data: '0x00cafe',
    value: 1000n,
    nonce,
    validAfter: 0n,
    validBefore: 0n,
    policyId: demo.policies.open,
    accounts: [{ address: demo.recipient, signer: false, writable: true }],
  })
  const toBody = (i: Intent, signature?: string) =>
    JSON.stringify({
      ...i,
      value: i.value.toString(),
      nonce: i.nonce.toString(),
      validAfter: i.validAfter.toString(),
      validBefore: i.validBefore.toString(),
      ...(signature ? { signature } : {}),
    })
  const signed = executed(1n)
  const hash = createSolanaRuntime({
    programId: devnet.programId as Address,
    config: devnet.config as Address,
  }).hashIntent(signed)
  const signature = `0x${Buffer.from(ed25519Seed.sign(demo.senderSecretKey, Buffer.from(hash.slice(2), 'hex'))).toString('hex')}`

  const lines: Array<[string, string]> = [
    ['200 SUCCESS (0x01): a valid intent', curl(intent({}))],
    ['403 DISALLOWED (0x10): a target the policy does not allow', curl(intent({ target: demo.otherTarget }))],
    [
      "402 INSUFFICIENT_FUNDS (0x54): value above the policy's per-transaction cap",
      curl(intent({ value: '200000000' })),
    ],
    ['410 TOO_LATE (0x21): validBefore in the past', curl(intent({ validBefore: '1' }))],
    ['202 TOO_EARLY (0x20): validAfter in the future', curl(intent({ validAfter: '4102444800' }))],
    [
      '421 UNSUPPORTED_CHAIN (0xA2): a Solana chain this gateway does not serve',
      curl(intent({}), 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'),
    ],
    [
      '200 EXECUTED (0x11): an intent signed by its sender (Ed25519 over the 32-byte intent hash); run it again: the same answer, replayed (nothing sent)',
      curl(toBody(signed, signature), chainId, 'execute'),
    ],
    [
      '401 SIGNATURE_REQUIRED (0xE5): the same intent unsigned (nonce 2); the answer carries `signing`, what to sign',
      curl(toBody(executed(2n)), chainId, 'execute'),
    ],
  ]
  // The same layout as the EVM commands (demoCommands), so one reader (and the start-up test) takes both.
  const printed =
    lines.map(([title, command]) => `# ${title}\n${command}\n`).join('\n') +
    (demo.agent ? `\n${accountModeCommands({ baseUrl, chainId, agent: demo.agent, apiKey })}` : '')
  const price = devnet.payments?.prices[chainId]?.execute
  if (!price || !devnet.payment || !devnet.rpcUrl || typeof price.price === 'string') return printed
  // Keyless and paid: the unmodified @x402/fetch with @x402/svm's client pays 0.01 DemoDollar (nonce 3).
  const paid = executed(3n)
  const paidHash = createSolanaRuntime({
    programId: devnet.programId as Address,
    config: devnet.config as Address,
  }).hashIntent(paid)
  const paidSignature = `0x${Buffer.from(ed25519Seed.sign(demo.senderSecretKey, Buffer.from(paidHash.slice(2), 'hex'))).toString('hex')}`
  return [
    printed,
    `# x402: the same kind of intent with no API key (nonce 3), paid ${Number(price.price.amount) / 10 ** devnet.payment.decimals} DemoDollar by the demo payer with the unmodified @x402/fetch and @x402/svm (offered on Solana devnet's id ${price.network}, settled on this chain; the script points the client at this chain's RPC)`,
    `npx tsx scripts/payForSolanaExecute.ts ${baseUrl} ${chainId} ${price.network} ${price.price.asset} ${devnet.rpcUrl} '${toBody(paid, paidSignature)}'`,
    '',
  ].join('\n')
}
