import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { redactUrl, redactUrlsIn } from './redactUrl.ts'

describe('redactUrl', () => {
  it('hides userinfo, key-like path segments and query values', () => {
    assert.equal(
      redactUrl('https://user:pass@rpc.example.org/v2/abcdefABCDEF0123456789?apikey=s3cret&x=1'),
      'https://***@rpc.example.org/v2/***?apikey=***&x=***',
    )
  })

  it('hides every path segment and query value that is not plainly a word, a version or a number', () => {
    for (const [url, expected] of [
      ['https://rpc.example.org/c2VjcmV0LWtleS0xMjM0NQ==', 'https://rpc.example.org/***'],
      ['https://rpc.example.org/v2/Ab3dEf', 'https://rpc.example.org/v2/***'],
      ['https://rpc.example.org/key_0123', 'https://rpc.example.org/***'],
      ['https://rpc.example.org/abc%3D%3D/x', 'https://rpc.example.org/***/x'],
      ['https://rpc.example.org/0123456789abcdef0123456789abcdef', 'https://rpc.example.org/***'],
      ['https://rpc.example.org/12345678901234', 'https://rpc.example.org/***'],
      ['https://rpc.example.org/averyveryverylongwordthatmaybeakey', 'https://rpc.example.org/***'],
      [
        'https://eth-mainnet.example.org/v3/rpc/base-sepolia/ext/bc/C/rpc',
        'https://eth-mainnet.example.org/v3/rpc/base-sepolia/ext/bc/***/rpc',
      ],
      [
        'https://rpc.example.org/84532/evm?network=mainnet&token=mainnet&x=Zm9v',
        'https://rpc.example.org/84532/evm?network=mainnet&token=***&x=***',
      ],
    ]) {
      assert.equal(redactUrl(url!), expected, url)
    }
  })

  it('keeps a plain local URL as it is', () => {
    assert.equal(redactUrl('http://127.0.0.1:8545/'), 'http://127.0.0.1:8545/')
  })

  it('never echoes something that is not a URL', () => {
    assert.equal(redactUrl('not a url with secret'), '<invalid url>')
  })

  it('redacts every URL inside a message', () => {
    assert.equal(
      redactUrlsIn(
        'HTTP request failed.\n\nURL: https://eth.example.org/v3/0123456789abcdef0123\nRequest body: {"url":"http://u:p@h/x?k=v"}',
      ),
      'HTTP request failed.\n\nURL: https://eth.example.org/v3/***\nRequest body: {"url":"http://***@h/x?k=***"}',
    )
  })
})
