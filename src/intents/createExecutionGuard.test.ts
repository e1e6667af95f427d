// Standing and budgets over real window counters (this process's memory; the Redis store has its
// own tests): the target rule's one revert per party, the breaker's paid spend, a payer's
// settlement spend (issue 40, items 1 and 6).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ExecutionGuardConfig } from '../config/limitsConfig.ts'
import { limitsConfig } from '../config/limitsConfig.ts'
import { createWindowCounters } from '../limits/createWindowCounters.ts'
import { createLogger } from '../logging/createLogger.ts'
import type { ExecutionReceipt } from '../ports/chainAdapter.ts'
import { createExecutionGuard, type GuardSubject } from './createExecutionGuard.ts'

const logger = createLogger({ level: 'silent' })
const chainId = 'eip155:31337'
const token = '0x5FbDB2315678afecb367f032d7c499e2d0ddf9A3'

const guardWith = (overrides: Partial<ExecutionGuardConfig>) => {
  const config = { ...limitsConfig({}).value, ...overrides }
  return createExecutionGuard({ config, counters: createWindowCounters({ windowMs: config.windowMs, logger }) })
}
const receipt = (state: ExecutionReceipt['state'], fee = 1_000n): ExecutionReceipt => ({
  state,
  status: state === 'mined' ? 0x11 : 0x50,
  transactionHash: `0x${'ab'.repeat(32)}`,
  blockNumber: 1n,
  gasUsed: 50_000n,
  returnData: undefined,
  detail: undefined,
  fee,
})
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`

describe('createExecutionGuard', () => {
  it('counts an account-mode transaction mined without running the intent (notExecuted: a skipped authorization) as a revert on the sender (was: a success)', async () => {
    const guard = guardWith({ maxRevertsPerSender: 1 })
    const subject: GuardSubject = { chainId, sender: address(0x7702), target: token, client: 'key:agent' }
    assert.equal(await guard.check(subject), undefined)
    await guard.record(subject, { ...receipt('mined'), status: 0x10, notExecuted: true })
    assert.equal((await guard.check(subject))?.reason, 'sender_reverts')
  })

  it('leaves a popular target open after 18 crafted reverts from 6 senders and 2 payers: one revert counts per party (was: 18 of 20, 429 reverts-throttled)', async () => {
    // The defaults: at least 20 attempts, at most half of them reverted. Sender and client standing off, as throwaway senders and payers escape them anyway.
    const guard = guardWith({ maxRevertsPerSender: 0, maxRevertsPerClient: 0 })
    const payers = [address(0xa1), address(0xa2)]
    for (let i = 0; i < 18; i++) {
      const payer = payers[i % 2]!
      await guard.record(
        { chainId, sender: address(0x100 + (i % 6)), target: token, client: `payer:${payer}`, payer },
        receipt('reverted'),
      )
    }
    for (let i = 0; i < 2; i++)
      await guard.record(
        { chainId, sender: address(0x200 + i), target: token, client: `key:honest${i}` },
        receipt('mined'),
      )
    const honest: GuardSubject = { chainId, sender: address(0x300), target: token, client: 'key:honest' }
    assert.equal(await guard.check(honest), undefined, 'the honest client may execute on the token')

    // The rule still judges a target whose reverts come from many parties: 10 of 20 from 10 unrelated ones.
    const other = address(0xbeef)
    for (let i = 0; i < 10; i++)
      await guard.record(
        { chainId, sender: address(0x400 + i), target: other, client: `ip:10.0.0.${i}` },
        receipt('reverted'),
      )
    for (let i = 0; i < 10; i++)
      await guard.record(
        { chainId, sender: address(0x500 + i), target: other, client: `ip:10.0.1.${i}` },
        receipt('mined'),
      )
    const refused = await guard.check({ ...honest, target: other })
    assert.equal(refused?.reason, 'target_reverts')
    assert.match(refused?.detail ?? '', /^10 of the 20 executions that called this target in the last 3600 s reverted/)

    // One party is enough to discount a revert: a new sender under a payer already counted, a new payer under a sender already counted.
    const third = address(0xcafe)
    const guard2 = guardWith({ maxRevertsPerSender: 0, maxRevertsPerClient: 0, targetMinAttempts: 2 })
    await guard2.record(
      { chainId, sender: address(1), target: third, client: 'payer:p1', payer: 'p1' },
      receipt('reverted'),
    )
    await guard2.record(
      { chainId, sender: address(2), target: third, client: 'payer:p1', payer: 'p1' },
      receipt('reverted'),
    )
    await guard2.record(
      { chainId, sender: address(1), target: third, client: 'payer:p2', payer: 'p2' },
      receipt('reverted'),
    )
    await guard2.record({ chainId, sender: address(3), target: third, client: 'key:k', payer: 'p3' }, receipt('mined'))
    await guard2.record({ chainId, sender: address(4), target: third, client: 'key:k2', payer: 'p4' }, receipt('mined'))
    await guard2.record({ chainId, sender: address(5), target: third, client: 'key:k3', payer: 'p5' }, receipt('mined'))
    // 1 counted revert of 6 attempts: open. Without the rule, 3 of 6 (a half) would be refused.
    assert.equal(await guard2.check({ chainId, sender: address(9), target: third, client: 'key:z' }), undefined)
  })

  it('counts toward the relayer spend budget only spend no payment covered (was: paid executes tripped it for everyone)', async () => {
    const guard = guardWith({
      relayerSpendBudget: 2_500,
      maxRevertsPerSender: 0,
      maxRevertsPerClient: 0,
      targetMaxRevertShare: 0,
    })
    const keyed: GuardSubject = { chainId, sender: address(1), target: token, client: 'key:agent' }
    // 5 paid executes from 3 throwaway payers, each costing the relayer 1 000: the breaker holds.
    for (let i = 0; i < 5; i++) {
      const payer = address(0xa0 + (i % 3))
      await guard.record(
        { chainId, sender: address(0x10 + i), target: token, client: `payer:${payer}`, payer },
        receipt('reverted'),
        { paid: true },
      )
    }
    assert.equal(await guard.check(keyed), undefined, 'an API-key client is still served')
    // Unpaid spend still trips it: 3 × 1 000 ≥ 2 500.
    for (let i = 0; i < 3; i++) await guard.record({ ...keyed, client: `ip:10.0.0.${i}` }, receipt('mined'))
    const broken = await guard.check(keyed)
    assert.equal(broken?.reason, 'relayer_spend_budget')
    assert.equal(broken?.problemType, 'urn:intent-gateway:problem:relayer-budget-spent')
    // What the operator's console shows: the unpaid spend only, against the budget, per chain.
    assert.deepEqual(await guard.relayerSpend(chainId), {
      spent: 3_000,
      budget: 2_500,
      windowSeconds: Math.round(limitsConfig({}).value.windowMs / 1000),
    })
    assert.deepEqual(await guard.relayerSpend('eip155:1'), {
      spent: 0,
      budget: 2_500,
      windowSeconds: Math.round(limitsConfig({}).value.windowMs / 1000),
    })
    assert.equal(
      await guardWith({ relayerSpendBudget: 0 }).relayerSpend(chainId),
      undefined,
      'no budget, nothing to show',
    )
  })

  it("counts a payer's settlement spend against its client budget on the payment's network, a failed one as its revert, never toward the relayer's budget", async () => {
    const guard = guardWith({
      gasBudgetPerClient: 10_000,
      relayerSpendBudget: 1,
      maxRevertsPerClient: 2,
      maxRevertsPerSender: 0,
      targetMaxRevertShare: 0,
    })
    const solana = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
    const payer = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
    const subject: GuardSubject = { chainId: solana, sender: payer, target: address(7), client: `payer:${payer}` }
    await guard.recordPayerSpend({ chainId: solana, client: `payer:${payer}`, fee: 5_000n, failed: false })
    assert.equal(await guard.check(subject), undefined, 'under its budget, and the breaker (1 lamport) untouched')
    await guard.recordPayerSpend({ chainId: solana, client: `payer:${payer}`, fee: 5_000n, failed: true })
    const spent = await guard.check(subject)
    assert.equal(spent?.reason, 'client_gas_budget')
    assert.match(spent?.detail ?? '', /^the relayer spent this client's gas budget on solana:\S+ \(10000 of 10000 /)
    // Another network's budget, another payer, and the chain's breaker are not touched.
    assert.equal(await guard.check({ ...subject, chainId }), undefined)
    assert.equal(await guard.check({ ...subject, client: 'payer:other' }), undefined)

    // A second failed settlement: the payer's client standing (STANDING_MAX_REVERTS_PER_CLIENT 2).
    const standing = guardWith({ maxRevertsPerClient: 2, maxRevertsPerSender: 0, targetMaxRevertShare: 0 })
    await standing.recordPayerSpend({ chainId: solana, client: `payer:${payer}`, fee: 0n, failed: true })
    assert.equal(await standing.check(subject), undefined)
    await standing.recordPayerSpend({ chainId: solana, client: `payer:${payer}`, fee: 0n, failed: true })
    assert.equal((await standing.check(subject))?.reason, 'client_reverts')
  })

  it('counts a reverted batch toward every distinct target it calls, once each, and refuses a batch calling any throttled target (was: only its first target)', async () => {
    // A share of 1/2 over at least 2 attempts; sender and client standing off.
    const guard = guardWith({
      maxRevertsPerSender: 0,
      maxRevertsPerClient: 0,
      targetMinAttempts: 2,
      targetMaxRevertShare: 0.5,
    })
    const [first, second] = [address(0xa11), address(0xb22)]
    // A batch calling first, second, then first again reverts (the subject's target is its first call's, as the route names it).
    const batch: GuardSubject = {
      chainId,
      sender: address(0x600),
      target: first,
      targets: [first, second, first.toUpperCase().replace('0X', '0x')],
      client: 'key:crafty',
    }
    await guard.record(batch, receipt('reverted'))
    // One honest success on second by another party: 1 of 2 reverted there, the share reached.
    await guard.record({ chainId, sender: address(0x601), target: second, client: 'key:honest' }, receipt('mined'))
    const onSecond = await guard.check({ chainId, sender: address(0x602), target: second, client: 'key:new' })
    assert.equal(onSecond?.reason, 'target_reverts', 'the revert counted toward the second target')
    assert.match(onSecond?.detail ?? '', /^1 of the 2 executions that called this target/)
    // The first target counted the batch once (one attempt, one revert), not once per call naming it.
    await guard.record({ chainId, sender: address(0x603), target: first, client: 'key:honest2' }, receipt('mined'))
    await guard.record({ chainId, sender: address(0x604), target: first, client: 'key:honest3' }, receipt('mined'))
    assert.equal(
      await guard.check({ chainId, sender: address(0x605), target: first, client: 'key:new' }),
      undefined,
      '1 of 3 on the first target',
    )
    // A batch whose first target is open but which also calls the throttled one is refused.
    const refused = await guard.check({
      chainId,
      sender: address(0x606),
      target: first,
      targets: [first, second],
      client: 'key:new',
    })
    assert.equal(refused?.reason, 'target_reverts')
  })
})
