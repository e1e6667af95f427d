// Each JavaScript step of a validate with large call data, alone (µs per call): which of them a
// 16 KiB intent makes expensive. `node --import tsx bench/microValidate.ts [bytes]`
import { Ajv } from 'ajv'
import { encodeIntent, evmRuntime } from '../src/chains/evm/evmRuntime.ts'
import { keccak256 } from '../src/crypto/keccak256.ts'
import { intentSchema } from '../src/intents/intentSchema.ts'
import { parseIntent } from '../src/intents/parseIntent.ts'

const bytes = Number(process.argv[2] ?? 16384)
const body = {
  sender: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  target: '0xCE3478A9E0167a6Bc5716DC39DbbbfAc38F27623',
  data: `0x7cf5dab0${'00'.repeat(32 + bytes)}`,
  value: '0',
  nonce: '12345',
  validAfter: '0',
  validBefore: '0',
  policyId: '0x534d0a7530c885628b4cbb5636d9425be9af4779f4d91cd499797596c0cb0583',
}
const text = JSON.stringify(body)
const validate = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, allErrors: false }).compile(
  intentSchema as object,
)
const time = (name: string, fn: (i: number) => unknown) => {
  for (let i = 0; i < 200; i++) fn(i)
  const n = 2000
  const t = process.hrtime.bigint()
  for (let i = 0; i < n; i++) fn(i)
  process.stdout.write(
    `${name.padEnd(34)} ${(Number(process.hrtime.bigint() - t) / 1000 / n).toFixed(1).padStart(8)} µs\n`,
  )
}
time('Buffer -> string -> JSON.parse', () => JSON.parse(Buffer.from(text).toString('utf8')))
time('schema (ajv, data pattern)', () => validate(JSON.parse(text)))
time('parseIntent', () => parseIntent(body, evmRuntime))
time('encodeIntent (new object)', () => encodeIntent(parseIntent(body, evmRuntime)))
time('keccak256 of the encoding', () => keccak256(encodeIntent(parseIntent(body, evmRuntime))))
time('JSON.stringify of an eth_call body', () =>
  Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: body.target, data: body.data + body.data.slice(2) }, 'latest'],
    }),
  ),
)
