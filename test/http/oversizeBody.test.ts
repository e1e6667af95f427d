// A body over BODY_LIMIT sent by a client that streams it without waiting (no Expect:
// 100-continue, as Node's fetch, undici and axios send) gets its 413 with the common headers,
// not a connection reset, even when many arrive at once.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Agent, fetch } from 'undici'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { startTestGateway, startWorld, type TestGateway, type World } from '../support/testGateway.ts'

const bodyLimit = 64 * 1024
/** Far past the limit and the sockets' buffers, so the client is still sending when the answer comes. */
const oversize = 2 * 1024 * 1024

describe('oversized bodies', () => {
  let world: World
  let gateway: TestGateway
  before(async () => {
    world = await startWorld()
    gateway = await startTestGateway({ chains: [world.devnet.chain], bodyLimit })
  })
  after(async () => {
    await gateway?.close()
    await world?.stop()
  })

  it('answers 20 concurrent oversize posts, declared or streamed, with 413 and the common headers', async () => {
    // One connection per post (undici opens one for each request in flight), all at once.
    const dispatcher = new Agent()
    const text = `{"data":"0x${'ab'.repeat(oversize / 2)}"}`
    const declared = () => ({ body: text })
    // Chunked, with no Content-Length, as a client streams what it produces: the limit is found
    // while reading, and the client is still sending when the answer comes.
    const streamed = () => {
      let at = 0
      const stream = new ReadableStream({
        async pull(controller) {
          await new Promise((r) => setTimeout(r, 5))
          if (at >= text.length / 2) return controller.close()
          controller.enqueue(new TextEncoder().encode(text.slice(at, at + 16 * 1024)))
          at += 16 * 1024
        },
      })
      return { body: stream, duplex: 'half' as const }
    }
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          try {
            const res = await fetch(`${gateway.baseUrl}/intents/validate`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              ...(i % 2 === 0 ? declared() : streamed()),
              dispatcher,
            })
            const body = await res.text()
            return {
              status: res.status,
              headers: res.headers as unknown as Headers,
              text: body,
              body: JSON.parse(body),
            }
          } catch (err) {
            return { error: `${(err as Error).message}: ${((err as Error).cause as Error | undefined)?.message}` }
          }
        }),
      )
      const failed = answers.flatMap((a, i) =>
        'error' in a ? [`post ${i} (${i % 2 === 0 ? 'declared' : 'streamed'}): ${a.error}`] : [],
      )
      assert.deepEqual(failed, [], 'every post got its answer')
      for (const answer of answers) {
        if ('error' in answer) continue
        assert.equal(answer.status, 413)
        assertCommonHeaders(answer, { status: '0xA0' })
        assert.equal(answer.body.title, 'The request body is too large')
        assert.equal(answer.headers.get('connection'), 'close')
      }
      // The gateway still answers afterwards.
      const health = await fetch(`${gateway.baseUrl}/health`)
      assert.equal(health.status, 200)
    } finally {
      await dispatcher.close()
    }
  })
})
