import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { redactUrl, redactUrlsIn } from './redactUrl.ts'

describe('redactUrl', () => {
  it('hides userinfo, key-like path segments and query values', () => {
    assert.equal(redactUrl('https://user:pass@rpc.example.org/v2/abcdefABCDEF0123456789?apikey=s3cret&x=1'), 'https://***@rpc.example.org/v2/***?apikey=***&x=***')
  })

  it('keeps a plain local URL as it is', () => {
    assert.equal(redactUrl('http://127.0.0.1:8545/'), 'http://127.0.0.1:8545/')
  })

  it('never echoes something that is not a URL', () => {
    assert.equal(redactUrl('not a url with secret'), '<invalid url>')
  })

  it('redacts every URL inside a message', () => {
    assert.equal(
      redactUrlsIn('HTTP request failed.\n\nURL: https://eth.example.org/v3/0123456789abcdef0123\nRequest body: {"url":"http://u:p@h/x?k=v"}'),
      'HTTP request failed.\n\nURL: https://eth.example.org/v3/***\nRequest body: {"url":"http://***@h/x?k=***"}',
    )
  })
})
