// Move aborts decoded from the SDK's structured field and from the two message forms.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeMoveAbort } from './decodeMoveAbort.ts'

const pkg = `0x${'4a'.repeat(32)}`

describe('decodeMoveAbort', () => {
  it('reads the structured field first, even when the message says otherwise', () => {
    assert.deepEqual(
      decodeMoveAbort({
        $kind: 'MoveAbort',
        message:
          'Move Runtime Abort. Location: 0x2::balance::split (function index 1) at offset 3, Abort Code: 2 in command 0',
        MoveAbort: { abortCode: '84', location: { package: pkg.slice(2), module: 'intents' } },
      }),
      { code: 84n, package: pkg, module: 'intents', source: 'structured' },
    )
  })

  it('reads the MoveAbort(MoveLocation …) debug form', () => {
    const message = `MoveAbort(MoveLocation { module: ModuleId { address: ${pkg.slice(2)}, name: Identifier("intents") }, function: 2, instruction: 14, function_name: Some("execute") }, 84) in command 1`
    assert.deepEqual(decodeMoveAbort({ $kind: 'Unknown', message }), {
      code: 84n,
      package: pkg,
      module: 'intents',
      source: 'message',
    })
  })

  it('reads the "Move Runtime Abort. Location: … Abort Code:" form', () => {
    const message = `Move Runtime Abort. Location: ${pkg}::intents::execute (function index 2) at offset 14, Abort Code: 229 in command 0`
    assert.deepEqual(decodeMoveAbort({ message }), { code: 229n, package: pkg, module: 'intents', source: 'message' })
  })

  it('returns undefined for failures that are not aborts', () => {
    assert.equal(decodeMoveAbort({ $kind: 'Unknown', message: 'InsufficientGas' }), undefined)
    assert.equal(decodeMoveAbort(undefined), undefined)
  })
})
