import assert from 'node:assert/strict'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { completeEnv, configProblems } from '../../../test/support/configProblems.ts'
import { loadConfig } from '../../runtimes.ts'
import { type EvmOptions, readEvmOptions } from './evmOptions.ts'
import { evmModule } from './index.ts'

const complete = completeEnv

/** The EVM options loadConfig keeps for the EVM module, read with every runtime. */
function options(env: Record<string, string>): EvmOptions {
  return loadConfig(env).runtimeOptions.evm as EvmOptions
}

const problems = configProblems

describe('the EVM settings (evmOptions)', () => {
  it('defaults: the public chain list, Multicall3 on, no validate cache, 200 ms of gathering, 100 gwei', () => {
    const found: string[] = []
    assert.deepEqual(readEvmOptions({}, found), {
      chainList: {
        url: 'https://chainlist.org/rpcs.json',
        timeoutMs: 5_000,
        ttlMs: 3_600_000,
        cacheFile: join(homedir(), '.cache', 'intent-gateway', 'chainlist.json'),
      },
      multicall: true,
      validateCache: false,
      simulationGatherMs: 200,
      maxFeePerGas: 100_000_000_000,
    })
    assert.deepEqual(found, [])
    assert.equal(options(complete).chainList.url, 'https://chainlist.org/rpcs.json')
  })

  it('reads the chain-list settings', () => {
    const config = options({
      ...complete,
      CHAINLIST_URL: 'http://127.0.0.1:9999/rpcs.json',
      CHAINLIST_TIMEOUT_MS: '250',
      CHAINLIST_TTL_MS: '0',
      CHAINLIST_CACHE_FILE: '/tmp/x.json',
    })
    assert.deepEqual(config.chainList, {
      url: 'http://127.0.0.1:9999/rpcs.json',
      timeoutMs: 250,
      ttlMs: 0,
      cacheFile: '/tmp/x.json',
    })
    assert.deepEqual(problems({ ...complete, CHAINLIST_URL: 'file:///etc/passwd' }), [
      'CHAINLIST_URL: scheme file: is not supported (use http or https)',
    ])
  })

  it('reads the re-pricing fee ceiling MAX_FEE_PER_GAS_GWEI', () => {
    assert.equal(options(complete).maxFeePerGas, 100_000_000_000)
    assert.equal(options({ ...complete, MAX_FEE_PER_GAS_GWEI: '2.5' }).maxFeePerGas, 2_500_000_000)
    assert.equal(options({ ...complete, MAX_FEE_PER_GAS_GWEI: '0' }).maxFeePerGas, undefined, '0 turns re-pricing off')
    assert.deepEqual(problems({ ...complete, MAX_FEE_PER_GAS_GWEI: '-1' }), [
      'MAX_FEE_PER_GAS_GWEI: "-1" is not an amount of gwei between 0 and 100000 (up to 9 decimals; 0 turns re-pricing off)',
    ])
  })

  it('folds validator reads into Multicall3 unless MULTICALL is false', () => {
    assert.equal(options(complete).multicall, true)
    assert.equal(options({ ...complete, MULTICALL: 'false' }).multicall, false)
    assert.deepEqual(problems({ ...complete, MULTICALL: 'sometimes' }), ['MULTICALL: "sometimes" is not true or false'])
  })

  it('keeps validator answers per block only when VALIDATE_CACHE is true', () => {
    assert.equal(options(complete).validateCache, false)
    assert.equal(options({ ...complete, VALIDATE_CACHE: 'true' }).validateCache, true)
    assert.deepEqual(problems({ ...complete, VALIDATE_CACHE: 'block' }), [
      'VALIDATE_CACHE: "block" is not true or false',
    ])
  })

  it('bounds EVM_SIMULATION_GATHER_MS from 0 to 10000', () => {
    assert.equal(options({ ...complete, EVM_SIMULATION_GATHER_MS: '0' }).simulationGatherMs, 0)
    assert.deepEqual(problems({ ...complete, EVM_SIMULATION_GATHER_MS: '10001' }), [
      'EVM_SIMULATION_GATHER_MS: "10001" is not an integer between 0 and 10000',
    ])
  })

  it('is what the EVM module hands back as its options, after its relayer keys', () => {
    const found: string[] = []
    const settings = evmModule.readSettings(
      { RELAYER_PRIVATE_KEY: 'nope', MULTICALL: 'false' },
      { production: false, problems: found },
    )
    assert.equal((settings.options as EvmOptions).multicall, false)
    assert.deepEqual(found, ['RELAYER_PRIVATE_KEY: must be 32 bytes written as 64 hex digits (optionally 0x-prefixed)'])
  })
})
