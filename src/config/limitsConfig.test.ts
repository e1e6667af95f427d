import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { limitsConfig } from './limitsConfig.ts'

describe('limitsConfig', () => {
  it('has standing on and budgets off by default', () => {
    assert.deepEqual(limitsConfig({}), {
      value: {
        windowMs: 3_600_000,
        maxRevertsPerSender: 3,
        maxRevertsPerClient: 10,
        targetMinAttempts: 20,
        targetMaxRevertShare: 0.5,
        targetAllowlist: [],
        gasBudgetPerClient: 0,
        relayerSpendBudget: 0,
      },
      problems: [],
    })
  })

  it('reads every setting', () => {
    const { value, problems } = limitsConfig({
      STANDING_WINDOW_MS: '60000',
      STANDING_MAX_REVERTS_PER_SENDER: '0',
      STANDING_MAX_REVERTS_PER_CLIENT: '5',
      STANDING_TARGET_MIN_ATTEMPTS: '4',
      STANDING_TARGET_MAX_REVERT_SHARE: '0.25',
      STANDING_TARGET_ALLOWLIST: '0x5FbDB2315678afecb367f032d93F642f64180aa3, 11111111111111111111111111111111',
      GAS_BUDGET_PER_CLIENT: '50000000000000000',
      RELAYER_SPEND_BUDGET: '1000000000000000000',
    })
    assert.deepEqual(problems, [])
    assert.deepEqual(value, {
      windowMs: 60_000,
      maxRevertsPerSender: 0,
      maxRevertsPerClient: 5,
      targetMinAttempts: 4,
      targetMaxRevertShare: 0.25,
      targetAllowlist: ['0x5FbDB2315678afecb367f032d93F642f64180aa3', '11111111111111111111111111111111'],
      gasBudgetPerClient: 5e16,
      relayerSpendBudget: 1e18,
    })
  })

  it('reports every bad value at once, naming the variable', () => {
    const { problems } = limitsConfig({
      STANDING_WINDOW_MS: '10',
      STANDING_MAX_REVERTS_PER_SENDER: '-1',
      STANDING_TARGET_MAX_REVERT_SHARE: '2',
      STANDING_TARGET_ALLOWLIST: 'nope',
      GAS_BUDGET_PER_CLIENT: '1e18',
    })
    assert.deepEqual(problems, [
      'STANDING_TARGET_MAX_REVERT_SHARE: "2" is not a share from 0 to 1 (0 turns the target rule off)',
      'STANDING_TARGET_ALLOWLIST: "nope" is not an EVM, Sui or Solana address',
      'STANDING_WINDOW_MS: "10" is not an integer between 1000 and 604800000',
      'STANDING_MAX_REVERTS_PER_SENDER: "-1" is not an integer between 0 and 1000000',
      'GAS_BUDGET_PER_CLIENT: "1e18" is not a decimal integer amount in the chain\'s smallest unit (wei on EVM; 0 turns it off)',
    ])
  })
})
