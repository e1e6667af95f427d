// The account-mode (EIP-7702) commands printed when the devnet starts: the demo agent (anvil #7,
// a public devnet key) runs intents from its own EOA, which holds DemoDollar and no deposit. Each
// execute carries the agent's authorization to the delegate at its nonce when the devnet started:
// whichever runs first delegates the account (a type-4 transaction), and once it is delegated
// the gateway ignores the authorization, so the commands work in any order. The session key's
// three are printed in the order that spends its policy's 0.02 ETH and then is refused.
import { type Address, encodeFunctionData, type Hex, parseEther, parseUnits } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { demoCounterArtifact } from '../../../contracts/demoCounterArtifact.ts'
import { demoDollarArtifact } from '../../../contracts/demoDollarArtifact.ts'
import { demoSwapArtifact } from '../../../contracts/demoSwapArtifact.ts'
import type { Intent, IntentCall } from '../../../ports/intent.ts'
import { accountTypedData } from '../intentTypedData.ts'
import type { Demo } from './seedDemo.ts'

export type DemoAccountCommandsParameters = {
  /** The chain id (decimal), as X-Chain-Id and as the authorization's and the signatures' chain. */
  chainId: number
  demo: Demo
  agentKey: Hex
  sessionKey: Hex
  /** The agent's account nonce now: what its authorization carries. */
  agentNonce: number
  /** Where the agent's DemoDollar transfer goes. */
  recipient: Address
  /** Writes one execute command for a body. */
  execute: (body: string) => string
}

/** [what it answers, the command] pairs, in the order to run them. */
export async function demoAccountCommands({
  chainId,
  demo,
  agentKey,
  sessionKey,
  agentNonce,
  recipient,
  execute,
}: DemoAccountCommandsParameters): Promise<Array<[string, string]>> {
  const { account, counter, payment } = demo
  const agent = privateKeyToAccount(agentKey)
  const signed = await agent.signAuthorization({ chainId, address: account.delegate, nonce: agentNonce })
  const authorization = {
    chainId,
    address: account.delegate,
    nonce: agentNonce,
    yParity: signed.yParity,
    r: signed.r,
    s: signed.s,
  }
  const increment = (value: bigint): IntentCall => ({
    target: counter,
    value,
    data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
  })
  const dollars = parseUnits('10', 6)
  // Nonces of their own, far from the printed executor-mode ones (one nonce space per sender).
  let nonce = 7_000n
  const body = async (calls: IntentCall[], policyId: Hex, key: Hex) => {
    const intent: Intent = {
      sender: account.agent,
      target: calls[0]!.target,
      data: '0x',
      value: 0n,
      nonce: nonce++,
      validAfter: 0n,
      validBefore: 0n,
      policyId,
      calls,
    }
    const single = calls.length === 1 ? calls[0]! : undefined
    const asSigned: Intent = single
      ? { ...intent, target: single.target, data: single.data, value: single.value, calls: undefined }
      : intent
    const signer = privateKeyToAccount(key)
    const typed = accountTypedData({ chainId, intent: asSigned })
    // viem's signTypedData infers one definition, not a union of two: narrowed to each, the same call.
    const signature =
      typed.primaryType === 'Intent' ? await signer.signTypedData(typed) : await signer.signTypedData(typed)
    const header = {
      sender: account.agent,
      nonce: intent.nonce.toString(),
      validAfter: '0',
      validBefore: '0',
      policyId,
    }
    const shape = single
      ? { ...header, target: single.target, data: single.data, value: single.value.toString() }
      : { ...header, calls: calls.map((c) => ({ target: c.target, data: c.data, value: c.value.toString() })) }
    return JSON.stringify({ ...shape, mode: 'account', authorization, signature })
  }
  const own = (calls: IntentCall[]) => body(calls, account.policies.own, agentKey)
  const session = (calls: IntentCall[]) => body(calls, account.policies.session, sessionKey)
  const dollar = (functionName: 'transfer' | 'approve', to: Address, amount: bigint): IntentCall => ({
    target: payment.asset,
    value: 0n,
    data: encodeFunctionData({ abi: demoDollarArtifact.abi, functionName, args: [to, amount] }),
  })
  const sell: IntentCall = {
    target: account.swap,
    value: 0n,
    data: encodeFunctionData({ abi: demoSwapArtifact.abi, functionName: 'sellDollars', args: [dollars] }),
  }
  return [
    [
      "200 EXECUTED (0x11): account mode, delegate and execute in one: the agent's first intent (the counter) carries its EIP-7702 authorization; the relayer sends a type-4 transaction to the agent's own address",
      execute(await own([increment(0n)])),
    ],
    [
      '200 EXECUTED (0x11): account mode, 10 DemoDollar from the agent’s own balance (Transfer from the agent’s address; the relayer pays the gas)',
      execute(await own([dollar('transfer', recipient, dollars)])),
    ],
    [
      '200 EXECUTED (0x11): account mode, approve + swap as one batch (`calls`): the pool takes 10 of the agent’s DemoDollar and pays it 0.005 ETH',
      execute(await own([dollar('approve', account.swap, dollars), sell])),
    ],
    [
      "200 EXECUTED (0x11): the session key's intent (0.01 ETH to the counter from the agent's ETH, under its policy of 0.01 a transaction, 0.02 in all)",
      execute(await session([increment(parseEther('0.01'))])),
    ],
    [
      "200 EXECUTED (0x11): the session key's second (its policy's 0.02 ETH now spent)",
      execute(await session([increment(parseEther('0.01'))])),
    ],
    [
      "402 INSUFFICIENT_FUNDS (0x54): the session key's third, refused after its policy's limit (errors[].field calls[0]); nothing sent",
      execute(await session([increment(1n), increment(0n)])),
    ],
  ]
}
