// A complete environment for one EVM chain (its three contracts' addresses), and the problems
// loadConfig reports for an environment it refuses (a test fails if it accepts it).
import assert from 'node:assert/strict'
import { ConfigError } from '../../src/errors/configError.ts'
import { loadConfig } from '../../src/runtimes.ts'

/** The executor's, validator's and registry's addresses of `completeEnv`. */
export const [a, b, c] = [
  '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
] as const
export const completeEnv = {
  EXECUTOR_ADDRESSES: JSON.stringify({ '84532': a }),
  VALIDATOR_ADDRESSES: JSON.stringify({ 'eip155:84532': b }),
  REGISTRY_ADDRESSES: JSON.stringify({ '84532': c }),
  RPC_URLS: JSON.stringify({ '84532': 'https://sepolia.base.example/v1/abc' }),
  PORT: '8080',
  PUBLIC_URL: 'https://gateway.example',
}

export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (err) {
    assert.ok(err instanceof ConfigError)
    return err.problems
  }
  assert.fail('expected a ConfigError')
}
