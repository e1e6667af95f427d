// The request body's parsing alone, before and after the second round's last request-path change:
// secure-json-parse's parse() (two regular expressions over the whole text, then a scan of the
// keys) against JSON.parse and the same scan, and the call data's schema pattern with and without
// a capturing group. In-process, alternating rounds, medians: a ratio that whole-bench noise hides.
// Run: npx tsx bench/jsonBodyParser.ts
import secureJson from 'secure-json-parse'

const poisoning = { protoAction: 'error', constructorAction: 'error' } as const

/** A validate body shaped like the bench's, with `dataBytes` of call data. */
function validateBody(dataBytes: number) {
  return JSON.stringify({
    sender: `0x${'70997970c51812dc3a010c7d01b50e0d17dc79c8'}`,
    target: `0x${'5fbdb2315678afecb367f032d93f642f64180aa3'}`,
    data: `0xd09de08a${'00'.repeat(32 + dataBytes)}`,
    value: '0',
    nonce: '12345',
    validAfter: '0',
    validBefore: '0',
    policyId: `0x${'ab'.repeat(32)}`,
  })
}

const ways = {
  'parser: secure-json-parse parse()': (text: string) => secureJson.parse(text, undefined, poisoning),
  'parser: JSON.parse + scan of keys': (text: string) => secureJson.scan(JSON.parse(text), poisoning),
  'data pattern: capturing ^0x([0-9a-fA-F]{2})*$': (text: string) =>
    /^0x([0-9a-fA-F]{2})*$/u.test(JSON.parse(text).data),
  'data pattern: non-capturing ^0x(?:[0-9a-fA-F]{2})*$': (text: string) =>
    /^0x(?:[0-9a-fA-F]{2})*$/u.test(JSON.parse(text).data),
  'JSON.parse alone (what the patterns pay too)': (text: string) => JSON.parse(text),
}

function nsPerCall(fn: (text: string) => unknown, text: string, calls: number) {
  const start = process.hrtime.bigint()
  for (let i = 0; i < calls; i++) fn(text)
  return Number(process.hrtime.bigint() - start) / calls
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!

for (const dataBytes of [0, 1024, 16_384]) {
  const text = validateBody(dataBytes)
  const calls = Math.max(200, Math.round(4_000_000 / text.length))
  const samples = new Map<string, number[]>(Object.keys(ways).map((k) => [k, []]))
  for (let round = 0; round < 9; round++) {
    for (const [name, fn] of Object.entries(ways)) {
      const ns = nsPerCall(fn, text, calls)
      if (round > 0) samples.get(name)!.push(ns) // the first round warms up
    }
  }
  process.stdout.write(
    `\nbody of ${text.length} bytes (${dataBytes} B of extra call data), median of 8 rounds of ${calls} calls\n`,
  )
  for (const [name, xs] of samples)
    process.stdout.write(`  ${name.padEnd(56)} ${(median(xs) / 1000).toFixed(2).padStart(8)} µs\n`)
  const m = (name: string) => median(samples.get(name)!)
  process.stdout.write(
    `  parser after/before ${(m('parser: JSON.parse + scan of keys') / m('parser: secure-json-parse parse()')).toFixed(2)}x,` +
      ` pattern after/before ${(m('data pattern: non-capturing ^0x(?:[0-9a-fA-F]{2})*$') - m('JSON.parse alone (what the patterns pay too)')).toFixed(0)} / ${(m('data pattern: capturing ^0x([0-9a-fA-F]{2})*$') - m('JSON.parse alone (what the patterns pay too)')).toFixed(0)} ns over JSON.parse\n`,
  )
}
