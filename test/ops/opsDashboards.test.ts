// docs/ops/: the Grafana dashboard and the Prometheus alert rules use only metrics the gateway
// exports (read from its own GET /metrics), with labels those metrics have; the rules pass
// `promtool check rules` when Debian's prometheus package is installed.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { Registry } from 'prom-client'
import { createMetrics } from '../../src/metrics/createMetrics.ts'
import { testApp } from '../support/testApp.ts'

const ops = join(import.meta.dirname, '..', '..', 'docs', 'ops')
const dashboardText = readFileSync(join(ops, 'grafana-dashboard.json'), 'utf8')
const rulesText = readFileSync(join(ops, 'alerts.yml'), 'utf8')

/** Series Prometheus makes itself, and labels it adds to every series (the scrape's target). */
const prometheusOwn = new Set(['up'])
const scrapeLabels = ['job', 'instance']

/** Every PromQL expression of the dashboard: panel targets and template variable queries. */
function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(dashboardText) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>
    templating: { list: Array<{ definition?: string }> }
  }
  return [
    ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
    ...dashboard.templating.list.flatMap((v) => (v.definition ? [v.definition] : [])),
  ]
}

/** The metric names (and the labels selected on each) in a PromQL expression. */
function selectors(expr: string): Array<{ name: string; labels: string[] }> {
  // Not inside quotes: label values such as "5.." or regexes hold no metric names.
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')
  const found: Array<{ name: string; labels: string[] }> = []
  for (const match of bare.matchAll(/\b([a-z_:][a-z0-9_:]*)\s*(\{([^}]*)\})?/g)) {
    const [, name, , inside] = match
    if (!name!.startsWith('intent_gateway_') && !prometheusOwn.has(name!)) continue
    found.push({
      name: name!,
      labels: (inside ?? '')
        .split(',')
        .map((s) => s.trim().split(/\s*[=!]~?\s*/)[0]!)
        .filter(Boolean),
    })
  }
  return found
}

/** Labels named in by (...) / without (...) / on (...) clauses, with every metric name used in the same expression. */
function groupingLabels(expr: string): string[] {
  return [...expr.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)].flatMap(([, list]) =>
    list!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
}

describe('operations dashboard and alert rules', () => {
  let app: FastifyInstance
  /** Sample names /metrics exposes (histograms as _bucket, _sum, _count), and each one's labels. */
  const exported = new Map<string, Set<string>>()

  before(async () => {
    const metrics = createMetrics({ registry: new Registry() })
    app = testApp({ server: { bodyLimit: 1024 }, execution: { receiptTimeoutMs: 1000 } }, { metrics })
    const res = await app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(res.statusCode, 200)
    // The exposition names every registered metric in its TYPE line, samples or not.
    const labelsOf = new Map(
      metrics.registry
        .getMetricsAsArray()
        .map((m) => [m.name, (m as unknown as { labelNames: string[] }).labelNames ?? []]),
    )
    for (const [, name, type] of res.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      const labels = new Set([...(labelsOf.get(name!) ?? []), ...scrapeLabels])
      if (type === 'histogram') {
        exported.set(`${name}_bucket`, new Set([...labels, 'le']))
        exported.set(`${name}_sum`, labels)
        exported.set(`${name}_count`, labels)
      } else exported.set(name!, labels)
    }
    assert.ok(
      exported.has('intent_gateway_relayer_balance') &&
        exported.has('intent_gateway_http_request_duration_seconds_bucket'),
      [...exported.keys()].join('\n'),
    )
  })
  after(async () => {
    await app?.close()
  })

  const rulesExpressions = () =>
    [...rulesText.matchAll(/^\s+expr: (?:\|\n((?:\s{10,}.*\n)+)|(.*)\n)/gm)].map(([, block, line]) =>
      (block ?? line)!.trim(),
    )

  for (const [what, expressions, expected] of [
    ['the dashboard', dashboardExpressions, 19],
    ['the alert rules', rulesExpressions, 14],
  ] as const) {
    it(`${what} uses only metrics the gateway exports, with their labels`, () => {
      const list = expressions()
      assert.ok(list.length >= expected, `${list.length} expressions`)
      for (const expr of list) {
        const found = selectors(expr)
        assert.ok(found.length > 0, `no gateway metric in ${expr}`)
        const allLabels = new Set(
          found.flatMap(({ name }) => [...(exported.get(name) ?? (prometheusOwn.has(name) ? scrapeLabels : []))]),
        )
        for (const { name, labels } of found) {
          if (prometheusOwn.has(name)) continue
          assert.ok(exported.has(name), `${name} (in ${expr}) is not in the gateway's /metrics`)
          for (const label of labels)
            assert.ok(exported.get(name)!.has(label), `${name} has no label ${label} (in ${expr})`)
        }
        for (const label of groupingLabels(expr))
          assert.ok(allLabels.has(label), `no metric of ${expr} has the label ${label}`)
      }
    })
  }

  it('between them, watch the metrics operators asked for', () => {
    const used = new Set(
      [...dashboardExpressions(), ...rulesExpressions()].flatMap((e) => selectors(e).map((s) => s.name)),
    )
    for (const name of [
      'intent_gateway_http_requests_total',
      'intent_gateway_chain_rpc_duration_seconds_bucket',
      'intent_gateway_chain_rpc_failures_total',
      'intent_gateway_chain_endpoint_up',
      'intent_gateway_executions_total',
      'intent_gateway_payments_total',
      'intent_gateway_relayer_balance',
      'intent_gateway_journal_unsettled',
      'intent_gateway_execute_refusals_total',
      'intent_gateway_relayer_spend_total',
    ])
      assert.ok(used.has(name), name)
    const alerts = [...rulesText.matchAll(/^\s+- alert: (\S+)$/gm)].map(([, name]) => name)
    for (const name of [
      'IntentGatewayDown',
      'IntentGatewayChainEndpointDown',
      'IntentGatewayRelayerBalanceLowEvm',
      'IntentGatewayJournalBacklogGrowing',
      'IntentGatewayRevertsAfterSimulation',
      'IntentGatewayPaymentsFailing',
      'IntentGatewayRefusalsByStanding',
    ]) {
      assert.ok(alerts.includes(name), name)
    }
  })

  it('the alert rules pass promtool check rules', async (t) => {
    const found = await promisify(execFile)('promtool', ['--version']).then(
      () => true,
      () => false,
    )
    if (!found)
      return t.skip(
        'promtool is not installed: apt-get install -y prometheus (scripts/ensureTestTools.sh installs it as root)',
      )
    const { stdout } = await promisify(execFile)('promtool', ['check', 'rules', join(ops, 'alerts.yml')]).catch((err) =>
      assert.fail(`promtool check rules: ${err.stdout}${err.stderr}`),
    )
    assert.match(stdout, /SUCCESS: 14 rules found/)
  })
})
