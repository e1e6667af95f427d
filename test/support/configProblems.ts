// The problems loadConfig reports for an environment it refuses (a test fails if it accepts it).
import assert from 'node:assert/strict'
import { loadConfig } from '../../src/runtimes.ts'
import { ConfigError } from '../../src/errors/configError.ts'

export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (err) {
    assert.ok(err instanceof ConfigError)
    return err.problems
  }
  assert.fail('expected a ConfigError')
}
