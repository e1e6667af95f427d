import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { InputError } from '../errors/inputError.ts'
import { readIdempotencyKey } from './readIdempotencyKey.ts'

const refusal = (header: string | string[]) => {
  try {
    readIdempotencyKey(header)
  } catch (err) {
    assert.ok(err instanceof InputError)
    assert.equal(err.errors.length, 1)
    assert.equal(err.errors[0]!.field, 'Idempotency-Key')
    return err.errors[0]!.message
  }
  assert.fail(`${JSON.stringify(header)} was taken`)
}

describe('readIdempotencyKey', () => {
  it('takes 1 to 255 printable ASCII characters as they are, and none when the header is absent', () => {
    assert.equal(readIdempotencyKey(undefined), undefined)
    assert.equal(readIdempotencyKey('1'), '1')
    assert.equal(readIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324'), '8e03978e-40d5-43e8-bc93-6894a57f9324')
    assert.equal(readIdempotencyKey(`a b~!${'x'.repeat(250)}`)?.length, 255)
  })

  it("reads the IETF draft's quoted form as its content", () => {
    assert.equal(readIdempotencyKey('"8e03978e"'), '8e03978e')
    assert.equal(readIdempotencyKey('"a\\"b\\\\c"'), 'a"b\\c')
    // Not a whole quoted string: the characters themselves.
    assert.equal(readIdempotencyKey('"a"b"'), '"a"b"')
  })

  it('refuses an empty, long, non-printable or repeated key, naming the header', () => {
    assert.match(refusal(''), /must not be empty/)
    assert.match(refusal('""'), /must not be empty/)
    assert.match(refusal('x'.repeat(256)), /at most 255 characters \(it has 256\)/)
    assert.match(refusal(`"${'x'.repeat(256)}"`), /at most 255/)
    assert.match(refusal('caf\u00e9'), /printable ASCII/)
    assert.match(refusal('a\tb'), /printable ASCII/)
    assert.match(refusal('a\u007fb'), /printable ASCII/)
    assert.match(refusal(['a', 'b']), /once/)
  })
})

describe('idempotencyKeyProblem (MCP: _meta["intent-gateway/idempotency-key"])', () => {
  it('says what is wrong with a value that is not a key, and nothing for a key', async () => {
    const { idempotencyKeyProblem } = await import('./idempotencyKeyProblem.ts')
    assert.equal(idempotencyKeyProblem('order-1'), undefined)
    assert.equal(idempotencyKeyProblem(1), 'must be a string')
    assert.equal(idempotencyKeyProblem({ key: 'a' }), 'must be a string')
    assert.equal(idempotencyKeyProblem('a\nb'), 'must be printable ASCII characters (from space to ~)')
  })
})
