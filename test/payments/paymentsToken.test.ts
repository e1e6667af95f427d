// DemoDollar on a real anvil: an EIP-3009 authorization moves funds once, before it expires,
// only with its owner's signature, and never after it was cancelled.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Address, type Hex, parseSignature } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Devnet, startDevnet } from '../../src/chains/evm/devnet/startDevnet.ts'
import { demoDollarArtifact } from '../../src/contracts/demoDollarArtifact.ts'
import {
  newAuthorization,
  signCancelAuthorization,
  signTransferAuthorization,
  tokenDomain,
} from '../support/paymentsAuthorization.ts'

describe('DemoDollar (EIP-3009) on anvil', () => {
  let devnet: Devnet
  let clients: ReturnType<typeof createDevClients>
  const payer = privateKeyToAccount(devnetAccounts.payer).address
  const payee = privateKeyToAccount(devnetAccounts.treasury).address
  const submitter = devnetAccounts.facilitator

  before(async () => {
    devnet = await startDevnet()
    clients = createDevClients(devnet.anvil.rpcUrl, devnet.anvil.chainId)
  })
  after(async () => {
    await devnet?.stop()
  })

  const token = () => devnet.contracts.dollar
  const domain = () => tokenDomain(devnet.demo.payment, devnet.anvil.chainId)
  const balanceOf = (who: Address) =>
    clients.publicClient.readContract({
      address: token(),
      abi: demoDollarArtifact.abi,
      functionName: 'balanceOf',
      args: [who],
    })
  async function write(key: Hex, functionName: string, args: readonly unknown[]) {
    const wallet = clients.walletFor(key)
    const hash = await wallet.writeContract({
      address: token(),
      abi: demoDollarArtifact.abi,
      functionName,
      args,
      account: wallet.account!,
      chain: wallet.chain,
    } as never)
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash })
    assert.equal(receipt.status, 'success')
  }
  const simulate = (key: Hex, functionName: string, args: readonly unknown[]) =>
    clients.publicClient.simulateContract({
      address: token(),
      abi: demoDollarArtifact.abi,
      functionName,
      args,
      account: privateKeyToAccount(key).address,
    } as never)
  const argsOf = (a: ReturnType<typeof newAuthorization>) =>
    [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const

  it("has 6 decimals, the EIP-712 name and version x402 checks, and the demo payer's minted balance", async () => {
    const read = (functionName: 'name' | 'version' | 'decimals') =>
      clients.publicClient.readContract({ address: token(), abi: demoDollarArtifact.abi, functionName })
    assert.equal(await read('name'), 'Demo Dollar')
    assert.equal(await read('version'), '1')
    assert.equal(await read('decimals'), 6)
    assert.equal(await balanceOf(payer), devnet.demo.payment.payerBalance)
  })

  it('lets only its deployer mint', async () => {
    await assert.rejects(simulate(devnetAccounts.payer, 'mint', [payer, 1n]), /NotMinter/)
  })

  it('moves funds once per authorization, in the bytes and the v,r,s forms; a replay is refused', async () => {
    const payerBefore = await balanceOf(payer)
    const payeeBefore = await balanceOf(payee)
    const a = newAuthorization({ from: payer, to: payee, value: 1_500_000n })
    const signature = await signTransferAuthorization(devnetAccounts.payer, domain(), a)
    await write(submitter, 'transferWithAuthorization', [...argsOf(a), signature])
    assert.equal(await balanceOf(payer), payerBefore - 1_500_000n)
    assert.equal(await balanceOf(payee), payeeBefore + 1_500_000n)
    assert.equal(
      await clients.publicClient.readContract({
        address: token(),
        abi: demoDollarArtifact.abi,
        functionName: 'authorizationState',
        args: [payer, a.nonce],
      }),
      true,
    )
    await assert.rejects(
      simulate(submitter, 'transferWithAuthorization', [...argsOf(a), signature]),
      /AuthorizationUsedOrCanceled/,
    )

    const b = newAuthorization({ from: payer, to: payee, value: 1n })
    const { v, r, s } = parseSignature(await signTransferAuthorization(devnetAccounts.payer, domain(), b))
    await write(submitter, 'transferWithAuthorization', [...argsOf(b), Number(v), r, s])
    assert.equal(await balanceOf(payee), payeeBefore + 1_500_001n)
    await assert.rejects(
      simulate(submitter, 'transferWithAuthorization', [...argsOf(b), Number(v), r, s]),
      /AuthorizationUsedOrCanceled/,
    )
  })

  it('refuses an expired or not-yet-valid authorization', async () => {
    const now = BigInt(Math.floor(Date.now() / 1000))
    const expired = newAuthorization({ from: payer, to: payee, value: 1n, validBefore: now - 10n })
    await assert.rejects(
      simulate(submitter, 'transferWithAuthorization', [
        ...argsOf(expired),
        await signTransferAuthorization(devnetAccounts.payer, domain(), expired),
      ]),
      /AuthorizationExpired/,
    )
    const early = newAuthorization({ from: payer, to: payee, value: 1n, validAfter: now + 3600n })
    await assert.rejects(
      simulate(submitter, 'transferWithAuthorization', [
        ...argsOf(early),
        await signTransferAuthorization(devnetAccounts.payer, domain(), early),
      ]),
      /AuthorizationNotYetValid/,
    )
  })

  it('refuses a signature by anyone but the payer, and one over other terms', async () => {
    const a = newAuthorization({ from: payer, to: payee, value: 1n })
    await assert.rejects(
      simulate(submitter, 'transferWithAuthorization', [
        ...argsOf(a),
        await signTransferAuthorization(devnetAccounts.other, domain(), a),
      ]),
      /InvalidSignature/,
    )
    const signed = await signTransferAuthorization(devnetAccounts.payer, domain(), a)
    await assert.rejects(
      simulate(submitter, 'transferWithAuthorization', [...argsOf({ ...a, value: 2n }), signed]),
      /InvalidSignature/,
    )
    await assert.rejects(
      simulate(submitter, 'transferWithAuthorization', [
        ...argsOf({ ...a, to: privateKeyToAccount(devnetAccounts.other).address }),
        signed,
      ]),
      /InvalidSignature/,
    )
  })

  it('lets the payer cancel an unused authorization, after which it moves nothing', async () => {
    const a = newAuthorization({ from: payer, to: payee, value: 1n })
    const signature = await signTransferAuthorization(devnetAccounts.payer, domain(), a)
    await assert.rejects(
      simulate(submitter, 'cancelAuthorization', [
        payer,
        a.nonce,
        await signCancelAuthorization(devnetAccounts.other, domain(), a.nonce),
      ]),
      /InvalidSignature/,
    )
    await write(submitter, 'cancelAuthorization', [
      payer,
      a.nonce,
      await signCancelAuthorization(devnetAccounts.payer, domain(), a.nonce),
    ])
    await assert.rejects(
      simulate(submitter, 'transferWithAuthorization', [...argsOf(a), signature]),
      /AuthorizationUsedOrCanceled/,
    )
  })

  it('lets only the payee submit a receiveWithAuthorization', async () => {
    const a = newAuthorization({ from: payer, to: payee, value: 1n })
    const signature = await signTransferAuthorization(devnetAccounts.payer, domain(), a, 'ReceiveWithAuthorization')
    await assert.rejects(
      simulate(submitter, 'receiveWithAuthorization', [...argsOf(a), signature]),
      /CallerMustBePayee/,
    )
    const before = await balanceOf(payee)
    await write(devnetAccounts.treasury, 'receiveWithAuthorization', [...argsOf(a), signature])
    assert.equal(await balanceOf(payee), before + 1n)
  })
})
