// The executor's IntentExecuted event read from a log by hand: its topic (computed once from the
// compiled ABI) and its two data fields, `bytes1 status` and `bytes returnData`. viem's
// decodeEventLog formats the event's signature and hashes it on every call (~75 µs and ~15 KB of
// garbage per execute in the execute bench's profile); a property test compares the two.
import { type Hex, toEventSelector } from 'viem'
import { intentExecutorArtifact } from '../../contracts/intentExecutorArtifact.ts'

const event = intentExecutorArtifact.abi.find((item) => item.type === 'event' && item.name === 'IntentExecuted')
if (event?.type !== 'event') throw new Error('IntentExecuted missing from the executor ABI')

/** keccak256("IntentExecuted(bytes32,bytes1,address,bytes)"). */
export const intentExecutedTopic = toEventSelector(event)

const word = 64

/**
 * The status byte and return data of an IntentExecuted log; undefined when the log is another
 * event or its data is not a well-formed abi.encode(bytes1, bytes) (as viem would refuse it).
 */
export function readIntentExecuted(log: {
  topics: readonly Hex[]
  data: Hex
}): { status: Hex; returnData: Hex } | undefined {
  // Two indexed fields (intentHash, executor) after the event's topic.
  if (log.topics.length !== 3 || log.topics[0]?.toLowerCase() !== intentExecutedTopic) return undefined
  const data = log.data.slice(2)
  if (data.length < 3 * word || data.length % 2 !== 0) return undefined
  // bytes1: its byte, then 31 zero bytes.
  if (!/^0{62}$/.test(data.slice(2, word))) return undefined
  const offset = Number.parseInt(data.slice(word, 2 * word), 16)
  if (!Number.isSafeInteger(offset) || offset % 32 !== 0 || offset < 64) return undefined
  const at = offset * 2
  if (data.length < at + word) return undefined
  const length = Number.parseInt(data.slice(at, at + word), 16)
  if (!Number.isSafeInteger(length) || data.length < at + word + length * 2) return undefined
  return { status: `0x${data.slice(0, 2)}`, returnData: `0x${data.slice(at + word, at + word + length * 2)}` }
}
