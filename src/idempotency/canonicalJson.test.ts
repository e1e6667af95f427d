import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { canonicalJson } from './canonicalJson.ts'

// The examples of RFC 8785 itself (§3.2.2, §3.2.3 and Appendix B), not outputs of this code.
describe('canonicalJson (RFC 8785)', () => {
  it('writes the RFC 8785 §3.2.2 example as the RFC does', () => {
    const input = `{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
      "literals": [null, true, false]
    }`
    assert.equal(
      canonicalJson(JSON.parse(input)),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    )
  })

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const input = `{
      "\\u20ac": "Euro Sign",
      "\\r": "Carriage Return",
      "\\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\\ud83d\\ude00": "Emoji: Grinning Face",
      "\\u0080": "Control",
      "\\u00f6": "Latin Small Letter O With Diaeresis"
    }`
    // Read from the text: a JavaScript object would put the integer-like key first whatever the text says.
    const order = [...canonicalJson(JSON.parse(input)).matchAll(/":"([^"]+)"/g)].map((m) => m[1])
    assert.deepEqual(order, [
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ])
  })

  it('writes the numbers of RFC 8785 Appendix B as the RFC does', () => {
    const cases: Array<[string, string]> = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ]
    for (const [bits, expected] of cases) {
      const number = Buffer.from(bits, 'hex').readDoubleBE(0)
      assert.equal(canonicalJson(number), expected, bits)
    }
  })

  it('refuses what JSON cannot hold (RFC 8785 Appendix B: NaN and Infinity)', () => {
    assert.throws(() => canonicalJson(Number.NaN), RangeError)
    assert.throws(() => canonicalJson(Number.POSITIVE_INFINITY), RangeError)
    assert.throws(() => canonicalJson({ a: 1n }), TypeError)
  })

  it('gives one text to bodies that mean the same, and another to bodies that do not', () => {
    assert.equal(
      canonicalJson(JSON.parse('{"b":[1.0,{"y":"\\u0041","x":null}],"a":true}')),
      canonicalJson(JSON.parse('{"a":true,"b":[1,{"x":null,"y":"A"}]}')),
    )
    assert.notEqual(canonicalJson(JSON.parse('{"a":[1,2]}')), canonicalJson(JSON.parse('{"a":[2,1]}')))
    assert.notEqual(canonicalJson(JSON.parse('{"a":"1"}')), canonicalJson(JSON.parse('{"a":1}')))
  })
})
