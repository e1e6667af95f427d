// An intent's event stream (GET /intents/{hash}/events) read as an EventSource reads it: the stream
// opened again with the last id received (Last-Event-ID) whenever it ends before the intent's last
// event, until the gateway answers 204 (finished, nothing can follow). A 404 (not sent yet) or a
// 429 is tried again.
import type { Hex } from 'viem'

export type Followed = { ids: string[]; types: string[]; connections: number; error?: string }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function followEvents(
  baseUrl: string,
  hash: Hex,
  { timeoutMs = 120_000 }: { timeoutMs?: number } = {},
): Promise<Followed> {
  const followed: Followed = { ids: [], types: [], connections: 0 }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const last = followed.ids.at(-1)
    let res: Response
    try {
      res = await fetch(`${baseUrl}/intents/${hash}/events`, {
        headers: { accept: 'text/event-stream', ...(last ? { 'last-event-id': last } : {}) },
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      })
    } catch (err) {
      followed.error = (err as Error).message
      await sleep(300)
      continue
    }
    if (res.status === 204) return followed
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel()
      await sleep(300)
      continue
    }
    followed.connections++
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const field = (name: string) =>
            block
              .split('\n')
              .find((line) => line.startsWith(`${name}:`))
              ?.slice(name.length + 1)
              .trim()
          const id = field('id')
          if (id === undefined) continue // a comment (heartbeat)
          followed.ids.push(id)
          followed.types.push(field('event') ?? '')
        }
      }
    } catch (err) {
      followed.error = (err as Error).message
    }
  }
  followed.error = `no 204 within ${timeoutMs / 1000} s (${followed.error ?? 'the stream kept going'})`
  return followed
}
