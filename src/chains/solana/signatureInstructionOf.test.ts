import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  type Address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { setComputeUnitLimit, setComputeUnitPrice } from './computeBudget.ts'
import { decodeSolanaFailure } from './decodeSolanaFailure.ts'
import { ed25519Instruction } from './intentGatewayProgram.ts'
import { signatureInstructionOf } from './signatureInstructionOf.ts'

const programId = 'Config1111111111111111111111111111111111111' as Address
const wire = (instructions: Instruction[]) =>
  getBase64EncodedWireTransaction(
    compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer('11111111111111111111111111111112' as Address, m),
        (m) =>
          setTransactionMessageLifetimeUsingBlockhash(
            { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 0n },
            m,
          ),
        (m) => appendTransactionMessageInstructions(instructions, m),
      ),
    ),
  )
const ed25519 = ed25519Instruction(new Uint8Array(32).fill(1), new Uint8Array(64).fill(2), new Uint8Array(32).fill(3))
const execute: Instruction = { programAddress: programId, accounts: [], data: new Uint8Array([5]) }

describe('which instruction carries the signature', () => {
  it('finds the Ed25519 instruction behind the compute budget, and first in transactions journaled before it', () => {
    const budgeted = wire([setComputeUnitLimit(50_000), setComputeUnitPrice(1_000n), ed25519, execute])
    const old = wire([ed25519, execute])
    assert.deepEqual(
      [signatureInstructionOf(budgeted), signatureInstructionOf(old), signatureInstructionOf('not a transaction')],
      [2, 0, 0],
    )
  })
  it("reads a failure of that instruction as the signature's (0xE4), and a compute budget failure as a fault", () => {
    const refused = { InstructionError: [2, 'InvalidInstructionData'] }
    assert.deepEqual(decodeSolanaFailure(refused, [], programId, 2), {
      kind: 'status',
      status: 0xe4,
      detail: 'the Ed25519 program refused the signature (InvalidInstructionData)',
    })
    assert.equal(
      decodeSolanaFailure({ InstructionError: [0, 'InvalidInstructionData'] }, [], programId, 2).kind,
      'error',
    )
  })
})
