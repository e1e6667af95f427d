// A local OTLP/HTTP trace receiver, as a collector's HTTP port is: POST /v1/traces with an
// ExportTraceServiceRequest in OTLP's JSON encoding (what @opentelemetry/exporter-trace-otlp-http
// sends), decoded into flat spans for the tests to read. Other encodings are refused (415), so a
// test cannot pass on a body it did not decode.
import { createServer, type Server } from 'node:http'
import { gunzipSync } from 'node:zlib'

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
type KeyValue = { key: string; value: AnyValue }

export type ReceivedSpan = {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  kind: number
  attributes: Record<string, string | number | boolean>
  resource: Record<string, string | number | boolean>
}

export type OtlpReceiver = {
  url: string
  spans: ReceivedSpan[]
  requests: { path: string; contentType: string | undefined }[]
  close(): Promise<void>
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const requests: OtlpReceiver['requests'] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const contentType = req.headers['content-type']
      requests.push({ path: req.url ?? '', contentType })
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end()
      if (!contentType?.startsWith('application/json')) return void res.writeHead(415).end()
      let raw = Buffer.concat(chunks)
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw)
      const body = JSON.parse(raw.toString('utf8')) as {
        resourceSpans?: {
          resource?: { attributes?: KeyValue[] }
          scopeSpans?: {
            spans?: {
              traceId: string
              spanId: string
              parentSpanId?: string
              name: string
              kind: number
              attributes?: KeyValue[]
            }[]
          }[]
        }[]
      }
      for (const rs of body.resourceSpans ?? []) {
        const resource = toRecord(rs.resource?.attributes)
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: toRecord(s.attributes),
              resource,
            })
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function toRecord(attributes: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {}
  for (const { key, value } of attributes ?? []) {
    const v =
      value.stringValue ??
      value.boolValue ??
      value.doubleValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined)
    if (v !== undefined) out[key] = v
  }
  return out
}
