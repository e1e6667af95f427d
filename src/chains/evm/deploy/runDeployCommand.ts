// `npm run deploy:contracts`: reads the options, deploys (or finds) the contracts and prints what
// was done and the gateway's settings, as text for people or with --json for machines. Progress
// goes to stderr so that stdout is only the result. Answers the exit code: 0 done, 1 refused or
// failed, 2 bad options. No key, PIN or RPC URL is ever printed.

import { ConfigError } from '../../../errors/configError.ts'
import { GatewayError } from '../../../errors/gatewayError.ts'
import { createDeployerAccount } from './createDeployerAccount.ts'
import { type DeployResult, deployToChain } from './deployToChain.ts'
import { deployUsage, readDeployOptions } from './readDeployOptions.ts'
import { type GatewaySettings, toGatewaySettings } from './toGatewaySettings.ts'

export type RunDeployCommandParameters = {
  argv: string[]
  env: Record<string, string | undefined>
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
}

export async function runDeployCommand({ argv, env, stdout, stderr }: RunDeployCommandParameters): Promise<number> {
  const options = readDeployOptions({ argv, env })
  if (options.help) {
    stdout.write(deployUsage)
    return 0
  }
  if (!options.value) {
    const problems = options.problems
    if (argv.includes('--json'))
      stdout.write(
        `${JSON.stringify({ error: { code: 'DEPLOY_OPTIONS', message: 'Invalid options', problems } }, null, 2)}\n`,
      )
    stderr.write(
      `Invalid options (${problems.length}):\n${problems.map((p) => `  - ${p}`).join('\n')}\n\n${deployUsage}`,
    )
    return 2
  }
  const { chainId, chainNumber, rpcUrl, confirmations, salt, json, key, current } = options.value
  try {
    const result = await deployToChain({
      chainId,
      chainNumber,
      rpcUrl,
      salt,
      confirmations,
      openAccount: () => createDeployerAccount(key),
      onProgress: (line) => stderr.write(`${line}\n`),
    })
    const settings = toGatewaySettings({ chainId, addresses: result.addresses, current })
    stdout.write(json ? `${JSON.stringify(toJson(result, settings), null, 2)}\n` : toText(result, settings))
    return 0
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err
    const problems = err instanceof ConfigError ? err.problems : undefined
    if (json)
      stdout.write(
        `${JSON.stringify({ error: { code: err.code, message: err.shortMessage, details: err.details, problems } }, null, 2)}\n`,
      )
    stderr.write(
      `${err.shortMessage}\n${problems ? problems.map((p) => `  - ${p}\n`).join('') : ''}${err.details && !problems ? `${err.details}\n` : ''}`,
    )
    return 1
  }
}

function toJson(result: DeployResult, settings: GatewaySettings) {
  return {
    chainId: result.chainId,
    deployer: result.deployer,
    salt: result.salt,
    confirmations: result.confirmations,
    transactions: result.transactions,
    contracts: Object.fromEntries(
      result.contracts.map((c) => [
        c.name,
        {
          address: c.address,
          outcome: c.outcome,
          ...(c.transactionHash
            ? { transactionHash: c.transactionHash, blockNumber: String(c.blockNumber), gasUsed: String(c.gasUsed) }
            : {}),
        },
      ]),
    ),
    settings: settings.values,
    notes: settings.notes,
  }
}

function toText(result: DeployResult, settings: GatewaySettings): string {
  const lines = [
    `${result.transactions === 0 ? 'Already deployed' : `Deployed (${result.transactions} transaction${result.transactions === 1 ? '' : 's'})`} on ${result.chainId} from ${result.deployer.address} (${result.deployer.backend}), salt ${result.salt}:`,
    ...result.contracts.map(
      (c) =>
        `  ${c.name.padEnd(16)} ${c.address}  ${c.outcome === 'deployed' ? `deployed in block ${c.blockNumber} (${c.transactionHash})` : c.outcome === 'created' ? 'created by IntentExecutor' : 'already there'}`,
    ),
    'Runtime code verified against this build (immutables masked, and read back).',
    '',
    `Give the gateway these settings${settings.merged.length > 0 ? ` (${settings.merged.join(', ')} merged with the chains this environment has)` : ''}:`,
    ...Object.entries(settings.values).map(([name, value]) => `${name}='${value}'`),
    ...settings.notes.map((note) => `# ${note}`),
    `# and an endpoint of ${result.chainId} in RPC_URLS (not printed here: RPC URLs often carry a key)`,
    '',
  ]
  return lines.join('\n')
}
