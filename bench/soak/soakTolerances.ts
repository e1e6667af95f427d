import type { Sample } from './sampleGateway.ts'

/**
 * What "no upward trend" means, per sampled series: the least-squares slope over the samples after
 * the warm-up must stay below `max` (in the series' unit per 10 minutes). The journal keeps every
 * record (IDEMPOTENCY_KEY_TTL_HOURS, 24 h), so it grows with the work done: its bound is per
 * execute started, not flat. The others are bounded outright.
 */
export type Tolerance = {
  series: Exclude<keyof Sample, 't'>
  unit: string
  max: (executesPer10Min: number) => number
  rule: string
}

export const soakTolerances: Tolerance[] = [
  { series: 'rssMB', unit: 'MB', max: () => 8, rule: 'RSS slope < 8 MB / 10 min' },
  { series: 'heapUsedMB', unit: 'MB', max: () => 4, rule: 'heap used slope < 4 MB / 10 min' },
  { series: 'openFds', unit: 'fds', max: () => 3, rule: 'open file descriptors slope < 3 / 10 min' },
  { series: 'eventLoopP99Ms', unit: 'ms', max: () => 10, rule: 'event-loop delay p99 slope < 10 ms / 10 min' },
  {
    series: 'journalMB',
    unit: 'MB',
    max: (executes) => (executes * 8) / 1024 + 1,
    rule: 'journal slope < 8 KB per execute + 1 MB / 10 min',
  },
  { series: 'redisKeys', unit: 'keys', max: () => 20, rule: 'Redis keys under the prefix slope < 20 / 10 min' },
]
