// A Solana JSON-RPC endpoint that lies about confirmation, put between one gateway and its fault
// proxy: while `notFound` is on, getSignatureStatuses answers "not found" (null) for signatures the
// node knows (a node behind the cluster); while `early` is on, a sendTransaction is answered at once
// with its signature but reaches the node only `delayMs` later, and getSignatureStatuses says
// "confirmed" for it meanwhile (a node that reports what it has not processed). Every lie is counted.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { getBase58Decoder } from '@solana/kit'

export type ConfirmationLiar = {
  url: string
  /** Share of getSignatureStatuses answers (0..1) turned into "not found" for every signature. */
  notFound: number
  /** Share of sendTransactions (0..1) answered before the node has them, and called confirmed meanwhile. */
  early: number
  /**
   * Holds the next sendTransaction whose fee payer (base58) `accept`s (others pass); resolves when
   * it arrives, with what to do with it: pass it on, or close its connection without an answer.
   */
  holdNextSend(accept: (feePayer: string) => boolean): Promise<{ forward(): void; drop(): void }>
  /** Drops every held sendTransaction and forgets the armed holds. */
  clear(): void
  /** Transactions called confirmed early that the node then refused (or never got), with why. */
  refusedLate: string[]
  /**
   * Run when a send has been answered early, before it goes on to the node (its fee payer, base58):
   * how a round makes the world change under a transaction the endpoint called confirmed.
   */
  onEarlyAnswer: ((feePayer: string | undefined) => Promise<void>) | undefined
  /** Lies told so far, by kind. */
  lies: { notFound: number; earlyConfirmed: number }
  close(): Promise<void>
}

type RpcRequest = { jsonrpc: string; id: unknown; method: string; params?: unknown[] }

export async function startConfirmationLiar({
  target,
  random,
  delayMs = 1_500,
}: {
  target: string
  random: () => number
  delayMs?: number
}): Promise<ConfirmationLiar> {
  const pending = new Set<string>()
  const sockets = new Set<Socket>()
  const post = (body: string) =>
    fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const answer = (res: ServerResponse, status: number, text: string) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(text)

  const holds: Array<{ accept(feePayer: string): boolean; resolve(h: { forward(): void; drop(): void }): void }> = []
  const held = new Set<ServerResponse>()
  const handle = async (text: string, res: ServerResponse) => {
    let request: RpcRequest | undefined
    try {
      const parsed = JSON.parse(text) as RpcRequest | RpcRequest[]
      request = Array.isArray(parsed) ? undefined : parsed
    } catch {}
    if (request?.method === 'sendTransaction' && holds.length > 0) {
      const payer = feePayerOf(Buffer.from(String(request.params?.[0]), 'base64'))
      const hold = holds.find((h) => payer !== undefined && h.accept(payer))
      if (hold) {
        holds.splice(holds.indexOf(hold), 1)
        held.add(res)
        const go = new Promise<boolean>((resolve) =>
          hold.resolve({
            forward: () => resolve(true),
            drop: () => resolve(false),
          }),
        )
        if (!(await go)) {
          held.delete(res)
          return void res.socket?.destroy()
        }
        held.delete(res)
      }
    }
    if (request?.method === 'sendTransaction' && liar.early > 0 && random() < liar.early) {
      const wire = Buffer.from(String(request.params?.[0]), 'base64')
      // A wire transaction starts with the count of signatures (one byte here), then the first: its id.
      const signature = getBase58Decoder().decode(wire.subarray(1, 65))
      pending.add(signature)
      liar.lies.earlyConfirmed++
      answer(res, 200, JSON.stringify({ jsonrpc: '2.0', id: request.id, result: signature }))
      await liar.onEarlyAnswer?.(feePayerOf(wire)).catch(() => {})
      // The node's own answer, when it comes, says whether the lie held: a refusal is recorded.
      setTimeout(
        () =>
          void post(text)
            .then(async (r) => {
              const { error } = (await r.json()) as { error?: { message?: string } }
              if (error) liar.refusedLate.push(`${signature}: ${error.message ?? JSON.stringify(error)}`)
            })
            .catch((err: unknown) =>
              liar.refusedLate.push(`${signature}: never reached the node (${(err as Error).message})`),
            )
            .finally(() => pending.delete(signature)),
        delayMs,
      ).unref()
      return
    }
    const upstream = await post(text)
    let body = await upstream.text()
    if (request?.method === 'getSignatureStatuses' && upstream.status === 200) {
      const signatures = (request.params?.[0] as string[] | undefined) ?? []
      const parsed = JSON.parse(body) as { result?: { value: Array<unknown> } }
      if (parsed.result) {
        const lieNotFound = liar.notFound > 0 && random() < liar.notFound
        parsed.result.value = parsed.result.value.map((v, i) => {
          if (pending.has(signatures[i]!)) {
            return { slot: 0, confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' }
          }
          if (lieNotFound && v !== null) {
            liar.lies.notFound++
            return null
          }
          return v
        })
        body = JSON.stringify(parsed)
      }
    }
    answer(res, upstream.status, body)
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => void handle(Buffer.concat(chunks).toString(), res).catch(() => res.socket?.destroy()))
  })
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const liar: ConfirmationLiar = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    notFound: 0,
    early: 0,
    lies: { notFound: 0, earlyConfirmed: 0 },
    refusedLate: [],
    onEarlyAnswer: undefined,
    holdNextSend: (accept) => new Promise((resolve) => holds.push({ accept, resolve })),
    clear() {
      holds.length = 0
      for (const r of held) r.socket?.destroy()
      held.clear()
    },
    async close() {
      liar.clear()
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return liar
}

/** The fee payer of a wire transaction (legacy or v0): the first account key of its message. */
function feePayerOf(wire: Buffer): string | undefined {
  try {
    const signatures = wire[0]!
    let at = 1 + signatures * 64
    if (wire[at]! & 0x80) at++ // v0's version prefix
    at += 3 // the header
    at++ // the count of account keys (compact-u16, below 128 here)
    return getBase58Decoder().decode(wire.subarray(at, at + 32))
  } catch {
    return undefined
  }
}
