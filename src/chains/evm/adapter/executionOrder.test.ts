import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createExecutionOrder } from './executionOrder.ts'

test('the calls of a batch claim in their order, each only once every call before it was sent', () => {
  const order = createExecutionOrder()
  const [a, b, c] = order.batch(0, 3)
  assert.equal(b!.claim(), false, 'the second before the first: simulated after a call not sent yet')
  assert.equal(a!.claim(), true)
  assert.equal(a!.claim(), false, 'a turn claims once')
  assert.equal(b!.fresh(), true)
  assert.equal(b!.claim(), true)
  assert.equal(c!.claim(), true)
})

test('a call simulated after one that is not sent cannot claim: it is simulated again', () => {
  const order = createExecutionOrder()
  const [a, b] = order.batch(0, 2)
  a!.drop()
  assert.equal(b!.fresh(), false)
  assert.equal(b!.claim(), false)
  // Simulated again on a view that holds nothing more: it claims.
  const [again] = order.batch(0, 1)
  assert.equal(again!.claim(), true)
})

test('an execution signed after the view was taken (another batch, an execution without a turn) stops every call of that batch', () => {
  const order = createExecutionOrder()
  const [first] = order.batch(0, 1)
  const [later] = order.batch(0, 1)
  assert.equal(first!.claim(), true)
  assert.equal(later!.claim(), false, 'its view did not hold the first')
  const [afterFirst] = order.batch(1, 1)
  order.claimUnordered()
  assert.equal(afterFirst!.claim(), false, 'an execution judged by eth_estimateGas was signed first')
  assert.equal(order.batch(2, 1)[0]!.claim(), true)
})

test('a claim whose signature failed is taken back: the calls after it are simulated again, a new view counts without it', () => {
  const order = createExecutionOrder()
  const [a, b] = order.batch(0, 2)
  assert.equal(a!.claim(), true)
  a!.unclaim()
  assert.equal(b!.claim(), false)
  assert.equal(order.batch(0, 1)[0]!.claim(), true)
})

test('settled() waits for the calls before it to be sent or dropped, at most the time given', async () => {
  const order = createExecutionOrder()
  const [a, b, c] = order.batch(0, 3)
  let settled = false
  const waiting = c!.settled(5_000).then(() => {
    settled = true
  })
  a!.claim()
  await new Promise((r) => setImmediate(r))
  assert.equal(settled, false, 'the second is still open')
  b!.drop()
  await waiting
  assert.equal(settled, true)
  const [x, y] = order.batch(1, 2)
  const started = performance.now()
  await y!.settled(50)
  assert.ok(performance.now() - started >= 45, 'the first never decided: the wait ends at its bound')
  assert.equal(y!.fresh(), false)
  x!.drop()
})

test('a view waits for the executions that claimed to be signed (or answered), at most the time given; then counts what is', async () => {
  const order = createExecutionOrder()
  const [a, b] = order.batch(0, 2)
  a!.claim()
  b!.claim()
  order.noteSigned()
  const view = order.view('signed', 5_000)
  setTimeout(() => order.noteSigned(), 20)
  assert.equal(await view, 2)
  assert.equal(await order.view('answered', 30), 0, 'no broadcast answered: the bound, then what is')
  order.noteAnswered()
  order.noteAnswered()
  assert.equal(await order.view('answered', 5_000), 2)
  // A view short of a claimed execution lets none of its calls claim.
  order.claimUnordered()
  const short = await order.view('signed', 10)
  assert.equal(short, 2)
  assert.equal(order.batch(short, 1)[0]!.claim(), false)
})
