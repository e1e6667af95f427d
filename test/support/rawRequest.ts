// A request written byte for byte to a gateway (what fetch refuses to send: malformed headers,
// odd encodings), and its answer read back as an HttpResult (the body parsed when it is JSON).
import { connect } from 'node:net'
import type { HttpResult } from './testGateway.ts'

export function rawRequest(baseUrl: string, head: string): Promise<HttpResult> {
  return new Promise<HttpResult>((resolve, reject) => {
    const { port } = new URL(baseUrl)
    let text = ''
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(head))
    socket.on('data', (d) => (text += d.toString('latin1')))
    socket.on('error', () => undefined)
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')))
    socket.on('close', () => {
      const [headBlock = '', body = ''] = text.split('\r\n\r\n')
      const [statusLine = '', ...lines] = headBlock.split('\r\n')
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1])
      if (!status) return reject(new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`))
      const headers = new Headers(
        lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as [string, string]),
      )
      let parsed: unknown
      try {
        parsed = JSON.parse(body)
      } catch {}
      resolve({ status, headers, body: parsed, text: body })
    })
  })
}
