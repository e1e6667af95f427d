// The deploy command's options: the chain and its RPC from the command line, the deployer's key
// from the environment (the same three backends the relayer's keys may live in: a local key, a
// PKCS#11 token, AWS KMS), and the settings the operator already gives the gateway, to merge the
// new addresses into. Like the config modules, it reads only the `env` it is given and reports
// every problem at once; the PIN and the key are never echoed.
import { parseArgs } from 'node:util'
import { type Hex, isHex, keccak256, stringToHex } from 'viem'
import { parseChainId } from '../../../ports/chainId.ts'
import type { KeySource } from '../../../ports/keySource.ts'

export type DeployerKeySource = { backend: 'local'; privateKey: Hex; setting: string } | KeySource

export type DeployOptions = {
  /** CAIP-2, e.g. eip155:8453. */
  chainId: string
  /** The decimal EVM chain id. */
  chainNumber: number
  rpcUrl: string
  confirmations: number
  salt: Hex
  json: boolean
  key: DeployerKeySource
  /** The address settings already in the environment (raw JSON), to merge into. */
  current: Record<string, string | undefined>
}

export type DeployOptionsResult = { value: DeployOptions | undefined; problems: string[]; help: boolean }

/** Chain ids where one confirmation is enough: anvil's (31337) and the devnet's second chain (31338). */
const devChains = new Set([31337, 31338])
/** The salt every run uses unless told otherwise: one deployment per chain, at the same addresses everywhere. */
export const defaultSaltText = 'intent-gateway'
const backends = ['local', 'pkcs11', 'kms'] as const

export const deployUsage = `Usage: npm run deploy:contracts -- --chain <CAIP-2 id> --rpc <url> [options]

Deploys PolicyRegistry, IntentExecutor (with its IntentLedger and IntentValidator), the EIP-7702
account delegate IntentAccount and IntentBundler through the CREATE2 deployer
0x4e59b44847b379578588920ca78fbf26c0b4956c, verifies their code against this build and prints the
gateway's settings. A second run deploys nothing.

Options:
  --chain <id>           the chain, CAIP-2 (eip155:8453); the RPC must serve it
  --rpc <url>            the chain's JSON-RPC endpoint
  --confirmations <n>    blocks to wait for each deployment (default 2; 1 on 31337 and 31338)
  --salt <text|0x..32>   the CREATE2 salt (default: keccak256("${defaultSaltText}"))
  --key-source <source>  local, pkcs11 or kms (default: the one whose settings are set)
  --json                 print the result as JSON, for machines
  --help                 this text

The deployer's key (environment):
  local   DEPLOYER_PRIVATE_KEY
  pkcs11  DEPLOYER_PKCS11_MODULE, DEPLOYER_PKCS11_TOKEN, DEPLOYER_PKCS11_PIN, DEPLOYER_PKCS11_KEY_LABEL
  kms     DEPLOYER_KMS_KEY_ID, KMS_REGION (or AWS_REGION), KMS_ENDPOINT (optional)
`

export function readDeployOptions({
  argv,
  env,
}: {
  argv: string[]
  env: Record<string, string | undefined>
}): DeployOptionsResult {
  const problems: string[] = []
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args: argv,
      options: {
        chain: { type: 'string' },
        rpc: { type: 'string' },
        confirmations: { type: 'string' },
        salt: { type: 'string' },
        'key-source': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (err) {
    return { value: undefined, problems: [(err as Error).message], help: false }
  }
  if (values.help) return { value: undefined, problems: [], help: true }

  const chain = readChain(values.chain as string | undefined, problems)
  const rpcUrl = readRpc(values.rpc as string | undefined, problems)
  const confirmations = readConfirmations(values.confirmations as string | undefined, chain?.chainNumber, problems)
  const salt = readSalt(values.salt as string | undefined, problems)
  const key = readKeySource(values['key-source'] as string | undefined, env, problems)
  const current = Object.fromEntries(
    [
      'EXECUTOR_ADDRESSES',
      'VALIDATOR_ADDRESSES',
      'REGISTRY_ADDRESSES',
      'ACCOUNT_DELEGATE_ADDRESSES',
      'BUNDLER_ADDRESSES',
    ].map((name) => [name, env[name]?.trim() || undefined]),
  )
  if (problems.length > 0 || !chain || !rpcUrl || confirmations === undefined || !salt || !key)
    return { value: undefined, problems, help: false }
  return {
    value: { ...chain, rpcUrl, confirmations, salt, json: values.json === true, key, current },
    problems,
    help: false,
  }
}

function readChain(raw: string | undefined, problems: string[]): { chainId: string; chainNumber: number } | undefined {
  if (!raw) {
    problems.push('--chain: required: the chain to deploy to, in CAIP-2 (eip155:8453)')
    return undefined
  }
  const parsed = parseChainId(raw)
  if (typeof parsed === 'string') {
    problems.push(`--chain: ${parsed}`)
    return undefined
  }
  if (parsed.namespace !== 'eip155') {
    problems.push(
      `--chain: ${parsed.caip2} is not an EVM chain: this command deploys the EVM contracts (a Solana program is deployed with \`solana program deploy\`, see the README)`,
    )
    return undefined
  }
  return { chainId: parsed.caip2, chainNumber: Number(parsed.reference) }
}

function readRpc(raw: string | undefined, problems: string[]): string | undefined {
  if (!raw) {
    problems.push('--rpc: required: the JSON-RPC URL of the chain')
    return undefined
  }
  try {
    const url = new URL(raw)
    if (url.protocol === 'http:' || url.protocol === 'https:') return raw
  } catch {}
  // The URL may carry an API key: it is not echoed.
  problems.push('--rpc: not an http(s) URL')
  return undefined
}

function readConfirmations(
  raw: string | undefined,
  chainNumber: number | undefined,
  problems: string[],
): number | undefined {
  if (raw === undefined) return chainNumber !== undefined && devChains.has(chainNumber) ? 1 : 2
  if (!/^[0-9]{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000) {
    problems.push(`--confirmations: "${raw.slice(0, 20)}" is not a whole number of blocks between 1 and 1000`)
    return undefined
  }
  return Number(raw)
}

function readSalt(raw: string | undefined, problems: string[]): Hex | undefined {
  if (raw === undefined) return keccak256(stringToHex(defaultSaltText))
  if (raw.startsWith('0x')) {
    if (isHex(raw) && raw.length === 66) return raw.toLowerCase() as Hex
    problems.push('--salt: a hex salt must be 32 bytes (0x and 64 hex digits); any other text is hashed')
    return undefined
  }
  if (raw.trim() === '') {
    problems.push('--salt: empty')
    return undefined
  }
  return keccak256(stringToHex(raw))
}

function readKeySource(
  requested: string | undefined,
  env: Record<string, string | undefined>,
  problems: string[],
): DeployerKeySource | undefined {
  const get = (name: string) => env[name]?.trim() || undefined
  const given = {
    local: get('DEPLOYER_PRIVATE_KEY') ? 'DEPLOYER_PRIVATE_KEY' : undefined,
    pkcs11: get('DEPLOYER_PKCS11_KEY_LABEL') ? 'DEPLOYER_PKCS11_KEY_LABEL' : undefined,
    kms: get('DEPLOYER_KMS_KEY_ID') ? 'DEPLOYER_KMS_KEY_ID' : undefined,
  }
  let backend: (typeof backends)[number] | undefined
  if (requested !== undefined) {
    if (!(backends as readonly string[]).includes(requested)) {
      problems.push(`--key-source: "${requested.slice(0, 20)}" is not one of ${backends.join(', ')}`)
      return undefined
    }
    backend = requested as (typeof backends)[number]
  } else {
    const set = backends.filter((b) => given[b])
    if (set.length === 0) {
      problems.push(
        'DEPLOYER_PRIVATE_KEY: no deployer key: set DEPLOYER_PRIVATE_KEY, DEPLOYER_PKCS11_KEY_LABEL (with DEPLOYER_PKCS11_MODULE, _TOKEN, _PIN) or DEPLOYER_KMS_KEY_ID',
      )
      return undefined
    }
    if (set.length > 1) {
      problems.push(
        `--key-source: ${set.map((b) => given[b]).join(' and ')} are both set: say which key deploys (--key-source ${set.join(' or ')})`,
      )
      return undefined
    }
    backend = set[0]
  }
  if (backend === 'local') {
    const privateKey = get('DEPLOYER_PRIVATE_KEY')
    if (!privateKey) problems.push('DEPLOYER_PRIVATE_KEY: required with --key-source local')
    else if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey))
      problems.push('DEPLOYER_PRIVATE_KEY: not a 32-byte hex private key (0x and 64 hex digits)')
    else return { backend, privateKey: privateKey as Hex, setting: 'DEPLOYER_PRIVATE_KEY' }
    return undefined
  }
  if (backend === 'pkcs11') {
    const modulePath = get('DEPLOYER_PKCS11_MODULE')
    const tokenLabel = get('DEPLOYER_PKCS11_TOKEN')
    const pin = env.DEPLOYER_PKCS11_PIN
    const keyLabel = get('DEPLOYER_PKCS11_KEY_LABEL')
    if (!modulePath)
      problems.push(
        "DEPLOYER_PKCS11_MODULE: required with --key-source pkcs11: the path of the token's PKCS#11 library",
      )
    if (!tokenLabel) problems.push("DEPLOYER_PKCS11_TOKEN: required with --key-source pkcs11: the token's label")
    if (!pin) problems.push("DEPLOYER_PKCS11_PIN: required with --key-source pkcs11: the token's user PIN")
    if (!keyLabel)
      problems.push(
        "DEPLOYER_PKCS11_KEY_LABEL: required with --key-source pkcs11: the label of the deployer's secp256k1 key pair",
      )
    if (modulePath && tokenLabel && pin && keyLabel)
      return { backend, modulePath, tokenLabel, pin, keyLabel, setting: 'DEPLOYER_PKCS11_KEY_LABEL' }
    return undefined
  }
  const keyId = get('DEPLOYER_KMS_KEY_ID')
  const region = get('KMS_REGION') ?? get('AWS_REGION')
  const endpoint = get('KMS_ENDPOINT')
  if (!keyId)
    problems.push(
      'DEPLOYER_KMS_KEY_ID: required with --key-source kms: the key id, alias or ARN of an ECC_SECG_P256K1 key',
    )
  else if (!/^[\w:/+=.@-]{1,2048}$/.test(keyId)) problems.push('DEPLOYER_KMS_KEY_ID: not a KMS key id, alias or ARN')
  if (!region) problems.push('KMS_REGION: required with DEPLOYER_KMS_KEY_ID (or set AWS_REGION)')
  if (endpoint !== undefined && !/^https?:\/\//.test(endpoint)) problems.push('KMS_ENDPOINT: must be an http(s) URL')
  if (keyId && region && problems.length === 0)
    return { backend: 'kms', keyId, region, endpoint, setting: 'DEPLOYER_KMS_KEY_ID' }
  return undefined
}
