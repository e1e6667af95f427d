// Native memory freed but still resident, given back to the system (NATIVE_HEAP_TRIM_MS; issue 44,
// item 1). Each start compiles: V8's parser and optimizing compiler take and free some 500 MB of
// native memory in the first two seconds, in blocks glibc's malloc serves from its heap. glibc gives
// freed memory back only at its heap's top, so when a block that stays is allocated above them, the
// freed pages below stay resident: one start in three or four kept 20–28 MB more than the others
// (docs/performance.md, twenty-fifth and twenty-sixth sessions). glibc's `malloc_trim` gives back
// every whole free page wherever it lies; Node has no call of it, so it is called through koffi, a
// C foreign-function interface with prebuilt binaries (an optional dependency). Where there is no
// glibc (musl, macOS) or koffi is not installed, nothing is trimmed and the gateway runs as before.
import type { Logger } from 'pino'

/** glibc's `malloc_trim(0)`: true when it gave memory back. */
export type NativeHeapTrim = () => boolean

let loading: Promise<NativeHeapTrim | undefined> | undefined

/** `malloc_trim` from the C library the process runs on, or undefined where there is none to call. */
export function loadNativeHeapTrim(): Promise<NativeHeapTrim | undefined> {
  loading ??= (async () => {
    try {
      const { default: koffi } = await import('koffi')
      const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number
      return () => trim(0) === 1
    } catch {
      return undefined
    }
  })()
  return loading
}

export type NativeHeapTrimmer = { stop(): void }

/**
 * Trims once start-up's compiles are over (`firstAfterMs` after the call), then every `everyMs`.
 * `everyMs` 0: never. The timers never keep the process alive.
 */
export function startNativeHeapTrim(options: {
  everyMs: number
  firstAfterMs?: number
  logger: Logger
  load?: () => Promise<NativeHeapTrim | undefined>
}): NativeHeapTrimmer {
  const { everyMs, logger, load = loadNativeHeapTrim } = options
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  if (everyMs <= 0) return { stop: () => undefined }
  const run = async (first: boolean) => {
    const trim = await load()
    if (stopped) return
    if (!trim) {
      if (first) logger.debug('native heap not trimmed: no glibc malloc_trim to call (or koffi is not installed)')
      return
    }
    const before = process.memoryUsage.rss()
    const startedAt = performance.now()
    let gaveBack: boolean
    try {
      gaveBack = trim()
    } catch (err) {
      // Not expected of malloc_trim; the gateway serves on without it rather than fail.
      logger.warn({ err }, 'native heap trim failed; not trimming again')
      return
    }
    if (first)
      logger.debug(
        { rssBefore: before, rssAfter: process.memoryUsage.rss(), gaveBack, ms: performance.now() - startedAt },
        "native heap trimmed after start-up (glibc's malloc_trim)",
      )
    timer = setTimeout(() => void run(false), everyMs).unref()
  }
  timer = setTimeout(() => void run(true), options.firstAfterMs ?? Math.min(everyMs, 5_000)).unref()
  return {
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}
