import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { interfacesConfig } from './interfacesConfig.ts'

describe('interfacesConfig', () => {
  it("defaults: metrics on the API's port without a token, MCP on", () => {
    assert.deepEqual(interfacesConfig({}), {
      value: { metrics: { enabled: true, port: undefined, host: '0.0.0.0', token: undefined }, mcp: { enabled: true } },
      problems: [],
    })
  })

  it('reads a port of their own, its host (HOST by default), the token, and MCP off', () => {
    assert.deepEqual(
      interfacesConfig({
        PORT: '3000',
        HOST: '10.0.0.5',
        METRICS_PORT: '9464',
        METRICS_TOKEN: '  scrape-token-0123456789 ',
        MCP_ENABLED: 'false',
      }),
      {
        value: {
          metrics: { enabled: true, port: 9464, host: '10.0.0.5', token: 'scrape-token-0123456789' },
          mcp: { enabled: false },
        },
        problems: [],
      },
    )
    assert.equal(
      interfacesConfig({ HOST: '10.0.0.5', METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' }).value.metrics.host,
      '127.0.0.1',
    )
    assert.deepEqual(interfacesConfig({ METRICS_ENABLED: '0', MCP_ENABLED: '1' }).value, {
      metrics: { enabled: false, port: undefined, host: '0.0.0.0', token: undefined },
      mcp: { enabled: true },
    })
  })

  it('reports every problem at once, naming the variable', () => {
    assert.deepEqual(
      interfacesConfig({ METRICS_ENABLED: 'maybe', METRICS_PORT: '70000', METRICS_TOKEN: 'short', MCP_ENABLED: 'yes' })
        .problems,
      [
        'METRICS_ENABLED: "maybe" is not true or false',
        'METRICS_PORT: "70000" is not an integer between 1 and 65535',
        'METRICS_TOKEN: is shorter than 16 characters',
        'MCP_ENABLED: "yes" is not true or false',
      ],
    )
    assert.deepEqual(interfacesConfig({ PORT: '3000', METRICS_PORT: '3000' }).problems, [
      "METRICS_PORT: 3000 is the API's PORT; choose another port, or leave METRICS_PORT unset to serve /metrics on the API's port",
    ])
    assert.deepEqual(
      interfacesConfig({ METRICS_ENABLED: 'false', METRICS_PORT: '9464', METRICS_TOKEN: 'scrape-token-0123456789' })
        .problems,
      [
        'METRICS_PORT: is set but METRICS_ENABLED is false (remove it, or turn the metrics on)',
        'METRICS_TOKEN: is set but METRICS_ENABLED is false (remove it, or turn the metrics on)',
      ],
    )
    assert.deepEqual(interfacesConfig({ METRICS_HOST: '127.0.0.1' }).problems, [
      "METRICS_HOST: is set but METRICS_PORT is not (the metrics are served on the API's port and host)",
    ])
    assert.deepEqual(interfacesConfig({ METRICS_PORT: '-1' }).problems, [
      'METRICS_PORT: "-1" is not an integer between 1 and 65535',
    ])
    assert.deepEqual(interfacesConfig({ METRICS_PORT: '0' }).problems, [
      'METRICS_PORT: "0" is not an integer between 1 and 65535',
    ])
  })
})
