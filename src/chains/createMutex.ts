// A FIFO lock: callers run one at a time, in the order they asked.
export type Mutex = { run<T>(fn: () => Promise<T>): Promise<T> }

export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    run(fn) {
      const result = tail.then(fn)
      tail = result.catch(() => undefined)
      return result
    },
  }
}
