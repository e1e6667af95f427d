// The chain-list registry as the gateway reads it: fetched with a timeout and a size cap, kept in
// memory for a TTL and on disk, so that a restart without network still finds endpoints.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Logger } from 'pino'
import { redactUrl } from '../../../config/redactUrl.ts'
import { type ChainListEntry, parseChainList } from './parseChainList.ts'

export type ChainListSource = 'chainlist' | 'chainlist-cache'

export type ChainList = {
  /** The registry's entry for a chain, and whether it came fresh or from the disk cache. */
  find(chainId: number): Promise<{ entry: ChainListEntry; source: ChainListSource } | undefined>
}

export type CreateChainListParameters = {
  url: string
  timeoutMs: number
  ttlMs: number
  cacheFile: string
  maxBytes?: number
  logger: Logger
}

export function createChainList({
  url,
  timeoutMs,
  ttlMs,
  cacheFile,
  maxBytes = 32 * 1024 * 1024,
  logger,
}: CreateChainListParameters): ChainList {
  const log = logger.child({ module: 'chainlist' })
  let loaded: { entries: Map<number, ChainListEntry>; source: ChainListSource; at: number } | undefined
  let loading: Promise<typeof loaded> | undefined

  async function fetchRegistry() {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    const declared = Number(res.headers.get('content-length') ?? 0)
    if (declared > maxBytes) throw new Error(`the document is ${declared} bytes, over the ${maxBytes}-byte limit`)
    // Count while reading: a server may send more than it declared.
    const chunks: Uint8Array[] = []
    let size = 0
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength
      if (size > maxBytes) throw new Error(`the document is over the ${maxBytes}-byte limit`)
      chunks.push(chunk)
    }
    const text = Buffer.concat(chunks).toString('utf8')
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch {
      throw new Error('the document is not JSON')
    }
    return { doc, text }
  }

  async function load(): Promise<typeof loaded> {
    try {
      const { doc, text } = await fetchRegistry()
      const { entries, skipped } = parseChainList(doc)
      log.info({ registry: redactUrl(url), chains: entries.size, skipped }, 'chain-list registry loaded')
      await saveCache(text).catch((err) => log.warn({ err, cacheFile }, 'could not write the chain-list cache'))
      return { entries, source: 'chainlist', at: Date.now() }
    } catch (err) {
      log.warn(
        { registry: redactUrl(url), reason: (err as Error).message },
        'chain-list registry unavailable; trying the disk cache',
      )
    }
    try {
      const { entries, skipped } = parseChainList(JSON.parse(await readFile(cacheFile, 'utf8')))
      log.info({ cacheFile, chains: entries.size, skipped }, 'chain-list loaded from the disk cache')
      return { entries, source: 'chainlist-cache', at: Date.now() }
    } catch (err) {
      log.warn({ cacheFile, reason: (err as Error).message }, 'no usable chain-list cache')
      return undefined
    }
  }

  async function saveCache(text: string) {
    await mkdir(dirname(cacheFile), { recursive: true })
    const tmp = `${cacheFile}.${process.pid}.tmp`
    await writeFile(tmp, text)
    await rename(tmp, cacheFile) // atomic: a crash never leaves half a cache
  }

  return {
    async find(chainId) {
      if (!loaded || Date.now() - loaded.at > ttlMs) {
        loading ??= load().finally(() => {
          loading = undefined
        })
        loaded = (await loading) ?? loaded
      }
      const entry = loaded?.entries.get(chainId)
      return entry && loaded ? { entry, source: loaded.source } : undefined
    },
  }
}
