// docs/api-contract.md §18, the one status vocabulary, held against the code: every code the
// gateway names has its row with the HTTP status and name the gateway serves, and every problem
// type the code writes out is in a row. A code or problem type added without its row fails here.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { getStatusCode, Status } from '../../src/status/statusCodes.ts'
import { statusVocabulary } from '../../src/status/statusVocabulary.ts'

const root = resolve(import.meta.dirname, '../..')
const contract = readFileSync(join(root, 'docs/api-contract.md'), 'utf8')
const section = contract.slice(contract.indexOf('## §18 One status vocabulary'))
const relayerCodes = new Set(['100', '110', '200', '400', '500', '—'])
const taskStates = ['working', 'input_required', 'completed', 'failed', 'cancelled']

type Row = {
  code: number
  statusName: string
  httpStatus: number
  problemTypes: string[]
  taskState: string
  x402: string
  relayer: string
}

const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim())
const rows: Row[] = section
  .split('\n')
  .filter((line) => /^\| `0x[0-9A-F]{2}` \|/.test(line))
  .map((line) => {
    const [code, statusName, httpStatus, problemTypes, taskState, x402, relayer] = cells(line)
    return {
      code: Number.parseInt(code!.slice(1, -1), 16),
      statusName: statusName!,
      httpStatus: Number(httpStatus),
      problemTypes: [...problemTypes!.matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]!),
      taskState: taskState!,
      x402: x402!,
      relayer: relayer!,
    }
  })
const byCode = new Map(rows.map((row) => [row.code, row]))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : []
  })
}

describe('the status vocabulary (docs/api-contract.md §18)', () => {
  it('has one row per code, each with the name and HTTP status the gateway serves', () => {
    assert.ok(rows.length >= 20, `§18's table was not found or is short (${rows.length} rows)`)
    assert.equal(byCode.size, rows.length, 'a code has two rows')
    for (const row of rows) {
      const served = getStatusCode(row.code)
      assert.equal(
        row.statusName,
        served.statusName,
        `${served.hex}: the table names it ${row.statusName}, the gateway ${served.statusName}`,
      )
      assert.equal(
        row.httpStatus,
        served.httpStatus,
        `${served.hex}: the table says HTTP ${row.httpStatus}, the gateway answers ${served.httpStatus}`,
      )
      assert.ok(
        relayerCodes.has(row.relayer),
        `${served.hex}: relayer_* code ${row.relayer} is not one of 100, 110, 200, 400, 500`,
      )
      assert.ok(
        taskStates.some((state) => row.taskState.startsWith(state)),
        `${served.hex}: MCP task state "${row.taskState}" is not one of ${taskStates.join(', ')}`,
      )
    }
  })

  it('has a row for every code the code names (Status in src/status/statusCodes.ts)', () => {
    const missing = Object.entries(Status)
      .filter(([, code]) => !byCode.has(code))
      .map(([name, code]) => `${name} (${getStatusCode(code).hex})`)
    assert.deepEqual(missing, [], `codes without a row in §18: ${missing.join(', ')}`)
  })

  it('is the data the code answers with (src/status/statusVocabulary.ts): the same task state, x402 word and relayer_* code per row', () => {
    for (const row of rows) {
      const hex = getStatusCode(row.code).hex
      const words = statusVocabulary.row(row.code)
      assert.ok(words, `${hex}: a row in §18 but none in statusVocabulary.ts`)
      const taskState = words.taskNote ? `${words.taskState} (${words.taskNote})` : words.taskState
      assert.equal(row.taskState, taskState, `${hex}: MCP task state`)
      assert.equal(row.x402, words.x402 ?? '—', `${hex}: x402 settlement`)
      assert.equal(row.relayer, words.relayer === undefined ? '—' : String(words.relayer), `${hex}: relayer_* code`)
      assert.equal(statusVocabulary.taskStateOf(row.code), words.taskState)
    }
    // Every code the gateway names has its words, so an answer never goes without them.
    const missing = Object.entries(Status)
      .filter(([, code]) => !statusVocabulary.row(code))
      .map(([name]) => name)
    assert.deepEqual(missing, [], `codes without a row in statusVocabulary.ts: ${missing.join(', ')}`)
  })

  it("writes each relayer_* code's meaning as statusVocabulary.ts does", () => {
    for (const [code, meaning] of Object.entries(statusVocabulary.relayerMeanings)) {
      const [word] = meaning.split(/[:,]| and /)
      assert.match(
        section,
        new RegExp(`\`${code}\` ${word!.trim()}`),
        `§18 does not define relayer_* ${code} as ${word}`,
      )
    }
  })

  it('names every problem type the code writes out, in the row of the code that answers it', () => {
    const named = new Set(rows.flatMap((row) => row.problemTypes))
    const written = new Set<string>()
    for (const file of sourceFiles(join(root, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/urn:intent-gateway:problem:([a-z0-9-]+)/g))
        written.add(m[1]!)
    }
    assert.ok(written.size >= 3, 'no problem types were found in src/: has their spelling changed?')
    const missing = [...written].filter((type) => !named.has(type))
    assert.deepEqual(missing, [], `problem types without a row in §18: ${missing.join(', ')}`)
  })

  it('keeps the derived problem type (§5) of each row in that row', () => {
    for (const row of rows) {
      const derived = row.statusName.toLowerCase().replace(/_/g, '-')
      const answersProblems = row.httpStatus >= 400
      if (answersProblems)
        assert.ok(
          row.problemTypes.includes(derived),
          `${getStatusCode(row.code).hex}: its problem type \`${derived}\` is not in its row`,
        )
    }
  })
})
