// The devnet's printed commands, account mode's included, run as printed against a gateway on the
// devnet: each answers the status it promises, in the printed order; the executor-mode ones stay
// true. Account mode's: the agent delegates in its first execute, moves its own DemoDollar, swaps
// (approve + swap in one batch), and its session key spends its policy's 0.02 ETH, then is refused.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { concatHex, parseEther, parseUnits } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { demoCommands } from '../../src/chains/evm/devnet/demoCommands.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { accountIntents } from '../support/accountIntents.ts'
import { startWorld, type World } from '../support/testGateway.ts'

describe('the printed devnet commands, account mode included, answer what they print', () => {
  let world: World
  const relayer = privateKeyToAccount(devnetAccounts.relayer).address
  const t = accountIntents(() => world, relayer)
  before(async () => {
    world = await startWorld({ receiptTimeoutMs: 15_000 })
  })
  after(async () => {
    await world?.stop()
  })

  it('runs every printed curl command in order and sees its printed status; the agent’s balances move as the account-mode ones say', async () => {
    const { devnet } = world
    const agent = devnet.demo.account.agent
    const printed = await demoCommands({
      baseUrl: world.gateway.baseUrl,
      chainId: devnet.chain.reference,
      executor: devnet.contracts.executor,
      senderKey: devnetAccounts.sender,
      demo: devnet.demo,
      account: {
        agentKey: devnetAccounts.agent,
        sessionKey: devnetAccounts.sessionKey,
        agentNonce: await world.clients.publicClient.getTransactionCount({ address: agent }),
        recipient: devnet.demo.payment.payTo,
      },
    })
    const blocks = [
      ...printed.matchAll(
        /^# (\d{3}) (.*)\ncurl -i -X POST (\S+) -H 'Content-Type: application\/json' -H 'X-Chain-Id: (\S+)' -d '(.*)'$/gm,
      ),
    ]
    assert.equal(blocks.length, 15, printed)
    const before = {
      eth: await t.ethOf(agent),
      dollars: await t.dollarsOf(agent),
      pool: await t.dollarsOf(devnet.contracts.swap),
    }
    const statuses: number[] = []
    for (const [, expected, what, url, chainId, body] of blocks) {
      const res = await fetch(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-chain-id': chainId! },
        body: body!,
      })
      const text = await res.text()
      statuses.push(res.status)
      assert.equal(res.status, Number(expected), `${what}: ${text}`)
      if (/errors\[\]\.field calls\[0\]/.test(what!))
        assert.deepEqual(
          (JSON.parse(text) as { errors: { field: string }[] }).errors.map((e) => e.field),
          ['calls[0]'],
          text,
        )
    }
    assert.deepEqual(statuses, [200, 403, 402, 410, 202, 421, 421, 401, 200, 200, 200, 200, 200, 200, 402])
    assert.equal(
      await t.codeOf(agent),
      concatHex(['0xef0100', devnet.contracts.accountDelegate]).toLowerCase(),
      'delegated by its first execute',
    )
    // 10 DemoDollar sent, 10 swapped for 0.005 ETH; 0.02 ETH spent by the session key; no gas.
    assert.equal(await t.dollarsOf(agent), before.dollars - 2n * parseUnits('10', 6))
    assert.equal(await t.dollarsOf(devnet.contracts.swap), before.pool + parseUnits('10', 6))
    assert.equal(await t.ethOf(agent), before.eth + parseEther('0.005') - parseEther('0.02'))
    // Each account-mode command carries the authorization: one executed after delegation ignores it.
    assert.equal((printed.match(/"authorization":/g) ?? []).length, 6)
  })
})
