// Chooses the relayer key that will send, simulates as that key will send (the validator's read
// only when that does not pass), and hands back a `send` bound to that key, its fees and the gas
// limit (the caller decides whether to send).
import { type Address, getAddress, type Hex, isAddress, isHex, parseTransaction, type TransactionReceipt } from 'viem'
import { ExecutionRefusedError } from '../../../errors/executionRefusedError.ts'
import { GatewayError } from '../../../errors/gatewayError.ts'
import type { ExecutionOptions, Preflight, SignedExecution, Submission } from '../../../ports/chainAdapter.ts'
import type { AccountMode, Intent } from '../../../ports/intent.ts'
import { isSuccessStatus, Status } from '../../../status/statusCodes.ts'
import type { BundleMembership } from '../bundleOutcomes.ts'
import { classifyRpcError } from '../classifyRpcError.ts'
import { evmSignedExecution } from '../evmSignedExecution.ts'
import { NotClaimedError, type RelayedTransaction, type SendClaim, type SendResult } from '../relayer/createRelayer.ts'
import { planAccount } from './accountMode.ts'
import { bundleCallsOf, bundledReceipt } from './bundledReceipt.ts'
import { assertAvailable, type EvmContext } from './evmContext.ts'
import type { PrecedingCall } from './executionGas.ts'
import { toExecutionReceipt } from './executionReceipt.ts'
import { type ExecutionStepMarks, executionSteps } from './executionSteps.ts'
import { executeBatchCalldata, executeCalldata, executeIntentCalldata } from './executorCalls.ts'
import { type GasCap, simulateExecution } from './simulateExecution.ts'
import { validate, validateAccount } from './validate.ts'

export async function prepareExecution(
  ctx: EvmContext,
  intent: Intent,
  signature?: Hex,
  options: ExecutionOptions = {},
): Promise<Preflight> {
  assertAvailable(ctx)
  const preparedAt = performance.now()
  const { relayers, maxGasPerExecution, chain, log, receipts } = ctx
  if (!relayers) throw new Error('prepareExecution called on a chain without a relayer')
  // The lower of the chain's cap and what a paid execute's price covers.
  const priced =
    options.gasCap !== undefined && (maxGasPerExecution === undefined || options.gasCap < maxGasPerExecution)
  const cap: GasCap | undefined = priced
    ? { gas: options.gasCap!, by: 'price' }
    : maxGasPerExecution !== undefined
      ? { gas: maxGasPerExecution, by: 'chain' }
      : undefined
  // Account mode: to the sender's own address (its delegate's executeIntent), simulated with the
  // code its authorization will give it, the authorization carried in a type-4 transaction.
  // A batch runs only from the sender's own account (the route refuses it in executor mode first).
  if (intent.calls && !options.account)
    return {
      ok: false,
      status: Status.DISALLOWED,
      detail: 'a batch (`calls`) runs only in account mode',
      errors: [{ field: 'mode', message: 'a batch needs `mode: "account"`' }],
    }
  const account = options.account ? await planAccount(ctx, intent, options.account) : undefined
  if (account && !account.ok) return account
  if (account && !signature) {
    return {
      ok: false,
      status: Status.SIGNATURE_REQUIRED,
      detail:
        "account mode runs only intents signed by the account's key (or a session key of its policy): sign the typed data in `signing` and send it as `signature`",
    }
  }
  const data = account
    ? intent.calls
      ? executeBatchCalldata(intent, signature!)
      : executeIntentCalldata(intent, signature!)
    : executeCalldata(intent, signature)
  const to = account ? account.account : chain.executor
  const target = account ? { to, toCode: account.delegated ? undefined : account.code } : {}
  // An authorization costs its transaction 25,000 gas more (EIP-7702 PER_EMPTY_ACCOUNT_COST), which no simulated call includes.
  const authorizationGas = account?.authorization ? 25_000n : 0n
  const authorizationList = account?.authorization ? [account.authorization] : undefined
  // Sent in the bundle its simulation ran it in (simulatedBundles.ts), where the chain has a bundler; account mode never.
  const bundling = !account && !authorizationList && chain.bundler !== undefined
  const refusal = (ctx: EvmContext, intent: Intent, signature: Hex | undefined) =>
    account ? accountRefusal(ctx, intent, signature, options.account!) : executorRefusal(ctx, intent, signature)
  // The simulation comes first and the validator's read only when it does not pass: an execution
  // that runs at the pending state has passed executeSigned's own checks (the signature, then
  // canExecute), so the read would say success and cost the node a call. When the simulation
  // refuses, or cannot be made, the validator's code still comes first, as it always has: an
  // intent it refuses answers that code, whatever the relayer or the node said.
  let simulated: Awaited<ReturnType<typeof simulateAsRelayer>>
  const shape = `${account ? 'account:' : ''}${shapeOf(intent, signature)}`
  // An earlier attempt that ran out of the gas we gave it is sent with at least twice its limit (a
  // bundle's call: its own limit in the bundle).
  const previousGas = options.previous ? previousLimit(options.previous) : undefined
  const atLeast = previousGas === undefined ? undefined : previousGas * 2n
  try {
    simulated = await simulateAsRelayer(ctx, data, cap, options, { shape, atLeast, ...target })
  } catch (err) {
    // A validator that cannot be read either: the first error is the one to answer.
    const refused = await refusal(ctx, intent, signature).catch(() => undefined)
    if (refused) return refused
    throw err
  }
  if (!simulated.ok) {
    return (await refusal(ctx, intent, signature)) ?? simulated
  }
  const { relayer, fees, afterPreceding } = simulated
  let limit = simulated.gasLimit + authorizationGas
  // Sent on this simulation's result only if it still holds when signed (executionOrder.ts).
  let turn = simulated.turn
  // When each step ended, for the log line of the send (performance.now()).
  const marks: ExecutionStepMarks = {
    receivedAt: options.receivedAt,
    preparedAt,
    askedAt: turn?.askedAt,
    simulatedAt: performance.now(),
  }
  // Counted until it waits for its receipt or is given up: the simulations batcher's view of the pool.
  ctx.state.handedOver++
  let handed = true
  const unhand = () => {
    if (handed) ctx.state.handedOver--
    handed = false
  }
  const done = () => {
    unhand()
    turn?.drop()
    simulated.done()
  }
  /**
   * Simulated again as the same key will send it, at the chain's state now after the gateway's
   * executions signed since (a paid execute: once its settlement is mined, so without it): the
   * refusal, or undefined with the new limit and turn.
   */
  const simulateAgain = async () => {
    turn?.drop()
    const again = await simulateExecution(ctx, { from: relayer.address, ...target, data, fees, cap, atLeast, shape })
    ctx.onResimulated(again.ok ? 'passed' : 'refused')
    if (!again.ok) return { ok: false as const, status: again.status, detail: again.detail }
    limit = again.gasLimit + authorizationGas
    turn = again.turn
    marks.simulatedAt = performance.now()
    return undefined
  }
  return {
    ok: true,
    cancel: done,
    // Once the caller's settlement is confirmed. Where it was not simulated with the execution (a
    // node without eth_simulateV1, a settlement that is not one call, another chain's), simulated
    // again; where it was, again only if that simulation no longer holds (a call simulated before
    // it was not sent, or another execution was signed meanwhile: the paid one goes after them).
    recheck: async () => {
      if (afterPreceding && turn) {
        await turn.settled(settledWaitMs)
        if (turn.fresh()) return undefined
      }
      return simulateAgain()
    },
    async send({ onSigned }) {
      try {
        return await sendOnce(onSigned)
      } finally {
        done()
      }
    },
  }

  /**
   * Claims its turn right before the signature (simulated again, up to `resimulationsAtMost` times,
   * while it cannot), then sends.
   */
  async function sendOnce(onSigned: (tx: SignedExecution) => void | Promise<void>): Promise<Submission> {
    for (let tries = 0; ; tries++) {
      // A call after another of its bundle's chunk goes to the bundle at once: the bundle claims its members in order.
      if (turn && !(turn.follows && bundling)) await turn.settled(settledWaitMs)
      try {
        return await signAndSend(onSigned)
      } catch (err) {
        if (!(err instanceof NotClaimedError)) throw err
        if (tries >= resimulationsAtMost) {
          ctx.onResimulated('overtaken')
          throw new GatewayError(
            'The execution could not be simulated in the order it would be sent; nothing was sent',
            {
              code: 'SIMULATION_OVERTAKEN',
              status: Status.UNAVAILABLE,
              cause: err,
              details: `simulated ${tries + 1} times, each time overtaken by other executions signed first`,
              headers: { 'retry-after': '1' },
            },
          )
        }
        ctx.log.debug({ relayer: relayer.address }, 'simulated again before signing: its simulation no longer holds')
        const refused = await simulateAgain()
        if (refused) throw new ExecutionRefusedError(refused.status, refused.detail)
      }
    }
  }

  async function signAndSend(onSigned: (tx: SignedExecution) => void | Promise<void>): Promise<Submission> {
    // The receipt is waited for from the moment the transaction is signed and journaled, before
    // its broadcast: a block read after the broadcast (the node may mine it at once, and answer
    // after many more blocks under load) always finds the wait, and the broadcast waits for the
    // watch to have its place, so no block that can hold it goes unread.
    let mined: Promise<TransactionReceipt> | undefined
    let signedHash: Hex | undefined
    // The execution counts in the order from its claim: once signed, then once its broadcast is answered; else it is taken back.
    let claimed = false
    let signedOnce = false
    const gas = limit
    // Simulated in a bundle (its turn names the run, simulatedBundles.ts): sent in the bundle with
    // the calls before it there, and its outcome read from its own call in the bundle's receipt.
    const chunk = bundling ? turn?.chunk : undefined
    const send = (
      tx: RelayedTransaction,
      options: { claim: SendClaim; onSigned: (tx: SignedExecution) => Promise<void> },
    ): Promise<SendResult & { membership?: BundleMembership }> =>
      chunk ? relayer.sendBundled(getAddress(chain.bundler!), { tx, chunk, ...options }) : relayer.send(tx, options)
    const sent = await send(
      { to, data, gas, fees, ...(authorizationList ? { authorizationList } : {}) },
      {
        claim: {
          take: () => {
            if (claimed) return true
            if (turn) claimed = turn.claim()
            else {
              ctx.order.claimUnordered()
              claimed = true
            }
            if (claimed) marks.claimedAt = performance.now()
            return claimed
          },
          failed: () => {
            if (!claimed || signedOnce) return
            claimed = false
            if (turn) turn.unclaim()
            else ctx.order.unclaim()
          },
        },
        onSigned: async (tx) => {
          if (!signedOnce) {
            marks.signedAt = performance.now()
            signedOnce = true
            ctx.order.noteSigned()
          }
          await onSigned(tx)
          // Signed again (the node had the nonce used: sendRelayed tries once more): the refused
          // signature can never be mined, and a wait left for it would keep the watch reading for ever.
          if (signedHash && signedHash !== tx.id) receipts.forget(signedHash)
          signedHash = tx.id as Hex
          mined = receipts.wait(signedHash, { unsent: true })
          // Its outcome is taken below once the broadcast is answered; a watch closed meanwhile (a shutdown) is not unhandled.
          mined.catch(() => {})
          unhand() // counted among the waits from here on
          // Broadcast once the watch has its place (at once while it runs; a head read after a lull):
          // the block that mines it is one the watch reads, so it is never asked for alone.
          await receipts.placed()
        },
      },
    )
      .catch((err: unknown) => {
        // Refused by the node (or stopped before the broadcast): nothing of it can be mined.
        if (signedHash) receipts.forget(signedHash)
        throw err
      })
      .finally(() => {
        if (signedOnce) ctx.order.noteAnswered()
      })
    const { transactionHash } = sent
    receipts.broadcast(transactionHash)
    // In the node's pool: the first of its batch tells the simulations how long a batch takes to get there.
    if (turn?.askedAt !== undefined) ctx.simulations.pooled(turn.askedAt)
    log.info(
      {
        transactionHash,
        relayer: relayer.address,
        txNonce: sent.txNonce,
        accepted: sent.accepted,
        gas: gas.toString(),
        steps: executionSteps(marks, performance.now()),
      },
      'execute sent',
    )
    // A replacement's receipt never shows under this hash: the record stays pending and
    // reconciliation settles it (dropped, or executed through the replacement).
    const { membership } = sent
    const receipt = (mined ?? receipts.wait(transactionHash)).then((r) =>
      membership
        ? bundledReceipt(r, membership, cap?.gas)
        : toExecutionReceipt(ctx, data, r, { gasLimit: gas, cap: cap?.gas }),
    )
    return { transactionHash, accepted: sent.accepted, receipt }
  }
}

/** How long a call waits for the calls simulated before it in its batch to be sent or given up, before it is simulated again instead. */
const settledWaitMs = 2_000
/** A call simulated again this many times, each time overtaken by another execution's signature, is not sent (503, to retry). */
const resimulationsAtMost = 8

/** Account mode: the account's own refusal (checkIntent at the sender's address); undefined when it accepts it. */
async function accountRefusal(
  ctx: EvmContext,
  intent: Intent,
  signature: Hex | undefined,
  mode: AccountMode,
): Promise<Preflight | undefined> {
  const answer = await validateAccount(ctx, intent, signature, mode)
  if (typeof answer !== 'number') return { ok: false, ...answer }
  if (isSuccessStatus(answer)) return undefined
  return {
    ok: false,
    status: answer,
    detail:
      answer === Status.UNAUTHORIZED
        ? "the account does not accept this signature: it must be the account key's (or a session key's of the policy) EIP-712 signature of the typed data in `signing`"
        : undefined,
  }
}

/** The validator's refusal of the intent (the executor's checkSigned with a signature); undefined when it accepts it. */
async function executorRefusal(
  ctx: EvmContext,
  intent: Intent,
  signature: Hex | undefined,
): Promise<Preflight | undefined> {
  const status = (await validate(ctx, intent, signature)) as number
  if (isSuccessStatus(status)) return undefined
  return {
    ok: false,
    status,
    detail:
      status === Status.UNAUTHORIZED
        ? "the executor does not accept this signature for this intent: it must be the sender's (or a delegate's of the policy) EIP-712 signature of the typed data in `signing`"
        : undefined,
  }
}

/**
 * The key that will send is chosen first, and the simulation runs as the chain will run that
 * transaction: its sender, its fees (an intent whose code reads tx.gasprice behaves alike in
 * both), an explicit gas limit (the cap; fee fields without one make the node check the balance
 * against its block gas cap) and the pending state. On success the key stays taken (`done` gives
 * it back); otherwise it is given back here.
 */
async function simulateAsRelayer(
  ctx: EvmContext,
  data: Hex,
  cap: GasCap | undefined,
  options: ExecutionOptions,
  { shape, atLeast, ...target }: { shape: string; atLeast: bigint | undefined; to?: Address; toCode?: Hex | undefined },
) {
  const { relayer, done } = await ctx.relayers!.acquire()
  let handedOver = false
  try {
    const fees = await relayer.fees().catch((err: unknown) => {
      throw classifyRpcError(err, ctx.chain.chainId, 'fee estimate')
    })
    const simulated = await simulateExecution(ctx, {
      from: relayer.address,
      ...target,
      data,
      fees,
      cap,
      atLeast,
      shape,
      precededBy: precedingCallOf(options.precededBy),
    })
    if (!simulated.ok) return simulated
    handedOver = true
    return {
      ok: true as const,
      relayer,
      done,
      fees,
      gasLimit: simulated.gasLimit,
      afterPreceding: simulated.afterPreceding === true,
      turn: simulated.turn,
    }
  } finally {
    if (!handedOver) done()
  }
}

/** The EVM call a payment's settlement makes (`{ from, to, data }`), as the payment mechanism described it; anything else is not EVM's. */
function precedingCallOf(precededBy: ExecutionOptions['precededBy']): PrecedingCall | undefined {
  if (!precededBy) return undefined
  const { from, to, data } = precededBy
  if (
    typeof from !== 'string' ||
    !isAddress(from) ||
    typeof to !== 'string' ||
    !isAddress(to) ||
    typeof data !== 'string' ||
    !isHex(data)
  ) {
    throw new Error('an EVM execution can only be preceded by a call { from, to, data }')
  }
  return { from, to, data }
}

/** What decides an execution's gas besides state: the call, its target and size, the policy, a value sent, a signature checked. */
const shapeOf = (intent: Intent, signature: Hex | undefined): string =>
  intent.calls
    ? `batch:${intent.calls.map((c) => `${c.target.toLowerCase()}:${c.data.slice(0, 10)}:${c.data.length}:${c.value === 0n ? 0 : 1}`).join(',')}:${intent.policyId}:${signature ? signature.length : 0}`
    : `${intent.target.toLowerCase()}:${intent.data.slice(0, 10)}:${intent.data.length}:${intent.policyId}:${intent.value === 0n ? 0 : 1}:${signature ? signature.length : 0}`

/** The gas limit an earlier attempt gave the execution: its transaction's, or, for a call of a bundle, the call's own. */
function previousLimit(previous: SignedExecution): bigint | undefined {
  const { gas, data } = parseTransaction(evmSignedExecution.rawTransaction(previous))
  return previous.bundle && data ? bundleCallsOf(data)[previous.bundle.index]?.gasLimit : gas
}
