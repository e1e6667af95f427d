// The executor's and validator's calls as this adapter sends them: selectors and encodings, on the
// intent's shared ABI encoding (evmRuntime.encodeIntent).
import { type Abi, type AbiFunction, concatHex, encodeFunctionData, type Hex, toFunctionSelector } from 'viem'
import { intentAccountArtifact } from '../../../contracts/intentAccountArtifact.ts'
import { intentExecutorArtifact } from '../../../contracts/intentExecutorArtifact.ts'
import { intentValidatorArtifact } from '../../../contracts/intentValidatorArtifact.ts'
import type { Intent } from '../../../ports/intent.ts'
import { toBatchTuple } from '../encodeBatchIntent.ts'
import { encodeIntent } from '../evmRuntime.ts'
import { encodeSignedIntent as encodeSignedArguments } from '../intentAbi.ts'

const selectorOf = (abi: Abi, name: string) =>
  toFunctionSelector(abi.find((i): i is AbiFunction => i.type === 'function' && i.name === name)!)
const canExecuteSelector = selectorOf(intentValidatorArtifact.abi, 'canExecute')
const checkSignedSelector = selectorOf(intentExecutorArtifact.abi, 'checkSigned')
const executeSelector = selectorOf(intentExecutorArtifact.abi, 'execute')
const executeSignedSelector = selectorOf(intentExecutorArtifact.abi, 'executeSigned')
const checkIntentSelector = selectorOf(intentAccountArtifact.abi, 'checkIntent')
const executeIntentSelector = selectorOf(intentAccountArtifact.abi, 'executeIntent')

/** Account mode, at the sender's address: checkIntent(intent, signature), the same (Intent, bytes) arguments as checkSigned. */
export const checkIntentCalldata = (intent: Intent, signature: Hex): Hex =>
  concatHex([checkIntentSelector, encodeSignedIntent(intent, signature)])
/** Account mode, sent to the sender's address: executeIntent(intent, signature). */
export const executeIntentCalldata = (intent: Intent, signature: Hex): Hex =>
  concatHex([executeIntentSelector, encodeSignedIntent(intent, signature)])

/** Account mode, a batch at the sender's address: checkBatch(batch, signature), answering (status, callIndex). */
export const checkBatchCalldata = (intent: Intent, signature: Hex): Hex =>
  encodeFunctionData({
    abi: intentAccountArtifact.abi,
    functionName: 'checkBatch',
    args: [toBatchTuple(intent), signature],
  })
/** Account mode, a batch sent to the sender's address: executeBatch(batch, signature). */
export const executeBatchCalldata = (intent: Intent, signature: Hex): Hex =>
  encodeFunctionData({
    abi: intentAccountArtifact.abi,
    functionName: 'executeBatch',
    args: [toBatchTuple(intent), signature],
  })

/** The ABI-encoded (intent, signature) of checkSigned and executeSigned, after their selectors (hand-written: intentAbi.ts). */
function encodeSignedIntent(intent: Intent, signature: Hex): Hex {
  return encodeSignedArguments(encodeIntent(intent), signature)
}

/** canExecute(intent) on the validator, or checkSigned(intent, signature) on the executor. */
export const validateCalldata = (intent: Intent, signature: Hex | undefined): Hex =>
  signature
    ? concatHex([checkSignedSelector, encodeSignedIntent(intent, signature)])
    : concatHex([canExecuteSelector, encodeIntent(intent)])

/**
 * executeSigned(intent, signature); unsigned, execute(intent), which the reference executor refuses
 * from anyone but the sender (0xE5) and executors with the origin's ABI authorize their own way.
 */
export const executeCalldata = (intent: Intent, signature: Hex | undefined): Hex =>
  signature
    ? concatHex([executeSignedSelector, encodeSignedIntent(intent, signature)])
    : concatHex([executeSelector, encodeIntent(intent)])
