// The `intent-gateway` command line over the client library. Keys come from the environment and
// are never printed; the exit code follows the outcome (see exitCodes.ts and usage.ts).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import type { SpendControlAsset } from '@x402/core/client'
import { type Hex, isHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ChainDescription } from '../chainDescription.ts'
import { createGatewayClient } from '../createGatewayClient.ts'
import { GatewayClientError } from '../gatewayClientError.ts'
import type { GatewayResult } from '../gatewayResult.ts'
import { hashIntent } from '../hashIntent.ts'
import type { AnyIntentInput, ChainType } from '../intentInput.ts'
import type { IntentSigner } from '../intentSigner.ts'
import type { PaymentOptions } from '../paymentOptions.ts'
import { signIntent } from '../signIntent.ts'
import { createSolanaSigner } from '../solana/createSolanaSigner.ts'
import { toIntentBody } from '../toIntentBody.ts'
import { cliVersion } from './cliVersion.ts'
import { exitCodeFor, exitCodes } from './exitCodes.ts'
import { findRepository } from './findRepository.ts'
import { type ConfirmationsFollower, followConfirmations } from './followConfirmations.ts'
import { formatResult, table, toJson } from './formatResult.ts'
import { flagOf, intentFlags, readIntent } from './readIntent.ts'
import { usage } from './usage.ts'
import { UsageError } from './usageError.ts'

type Output = { write(text: string): unknown }

export type RunCliParameters = {
  argv: string[]
  env: Record<string, string | undefined>
  stdout: Output
  stderr: Output
  cwd?: string
  /** Reads the whole of stdin (for --intent -). */
  stdin?: () => string
}

const options = {
  ...intentFlags,
  url: { type: 'string' },
  chain: { type: 'string' },
  json: { type: 'boolean' },
  wait: { type: 'boolean' },
  'respond-async': { type: 'boolean' },
  timeout: { type: 'string' },
  unsigned: { type: 'boolean' },
  pay: { type: 'boolean' },
  'max-usd': { type: 'string' },
  'allow-asset': { type: 'string', multiple: true },
  'chain-type': { type: 'string' },
  program: { type: 'string' },
  config: { type: 'string' },
  port: { type: 'string' },
  'no-authorize': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

const commands = new Set(['start', 'validate', 'execute', 'sign', 'hash', 'status', 'account', 'codes', 'chains'])

export async function runCli(params: RunCliParameters): Promise<number> {
  const { stdout, stderr, env } = params
  const json = params.argv.includes('--json')
  const fail = (code: number, kind: string, message: string) => {
    if (json) stdout.write(`${toJson({ error: { code: kind, message } })}\n`)
    stderr.write(`intent-gateway: ${message}\n`)
    return code
  }
  try {
    const { values, positionals } = parseArgs({ args: params.argv, options, allowPositionals: true, strict: true })
    const [command, ...rest] = positionals
    if (values.version) {
      stdout.write(
        json
          ? `${toJson({ name: '@intent-gateway/client', version: cliVersion })}\n`
          : `intent-gateway ${cliVersion}\n`,
      )
      return exitCodes.success
    }
    if (values.help || command === undefined || command === 'help') {
      stdout.write(usage)
      return command === undefined && !values.help ? exitCodes.usage : exitCodes.success
    }
    if (!commands.has(command))
      throw new UsageError(
        `unknown command ${JSON.stringify(command)} (commands: ${[...commands].join(', ')}; see --help)`,
      )
    if (command === 'start') return await start(params, values.port)

    const timeoutMs = values.timeout === undefined ? 60_000 : Number(values.timeout)
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0)
      throw new UsageError('--timeout must be a positive number of milliseconds')
    const url = values.url ?? env.INTENT_GATEWAY_URL ?? 'http://127.0.0.1:3000'
    const chainId = values.chain ?? (env.INTENT_GATEWAY_CHAIN_ID || undefined)
    const clientOptions = {
      url,
      ...(env.INTENT_GATEWAY_API_KEY ? { apiKey: env.INTENT_GATEWAY_API_KEY } : {}),
      ...(chainId ? { chainId } : {}),
      ...(values.pay ? { payment: paymentFrom(values, env) } : {}),
      timeoutMs,
    }
    const client = createGatewayClient(clientOptions)
    // Execute: answered once the node holds the transaction (Prefer: respond-async), not once mined.
    const respondAsync = values['respond-async'] ? { respondAsync: true } : {}
    /**
     * Account mode (EVM only): the client signs with INTENT_SIGNER_PRIVATE_KEY (the sender's own key,
     * or a session key), and with the sender's own key also signs its EIP-7702 authorization
     * when GET /accounts says the sender is not delegated yet (unless --no-authorize).
     */
    const sendAccountIntent = (path: 'validate' | 'execute', intent: AnyIntentInput) => {
      const signer = values.unsigned ? undefined : signerFrom('evm', env)
      const accountClient = signer ? createGatewayClient({ ...clientOptions, account: signer as IntentSigner }) : client
      return accountClient[path](intent, {
        authorize: !values['no-authorize'],
        ...(path === 'execute' ? respondAsync : {}),
      })
    }
    const print = (result: GatewayResult) => {
      stdout.write(`${json ? toJson(result) : formatResult(result, { paying: Boolean(values.pay) })}\n`)
      return exitCodeFor(result.action)
    }
    const wait = async (result: GatewayResult | string) => {
      const intentHash = typeof result === 'string' ? result : result.intentHash
      // Mined is not yet final: between the stream's `mined` and `final`, the depth, block by block.
      const depth = followConfirmations({
        url,
        fetch: globalThis.fetch,
        headers: env.INTENT_GATEWAY_API_KEY ? { authorization: `Bearer ${env.INTENT_GATEWAY_API_KEY}` } : {},
        requiredFor: async (chain) =>
          intentHash ? depthFrom(await client.getIntent(intentHash, { chainId: chain })) : undefined,
        onDepth: ({ blockNumber, confirmations, required }) =>
          stderr.write(`mined in block ${blockNumber}: ${confirmations} of ${required} confirmations\n`),
      })
      if (typeof result !== 'string') depth.seen(result)
      try {
        return await client.waitForIntent(result, {
          timeoutMs,
          onProgress: ({ attempt, elapsedMs, result: r }) => {
            depth.seen(r)
            stderr.write(
              `${progressOf(r, depth)}: ${(elapsedMs / 1000).toFixed(1)} s, poll ${attempt}, ${r.status} ${r.statusName ?? ''}\n`,
            )
            if (
              r.chainId &&
              r.blockNumber !== undefined &&
              (r.state === 'mined' || r.state === 'reverted') &&
              r.body.final === false
            )
              depth.mined({ chainId: r.chainId, blockNumber: r.blockNumber })
          },
          onEvent: (e) => {
            stderr.write(
              `event: ${e.type}${e.blockNumber ? ` in block ${e.blockNumber}` : ''}${e.transactionHash ? ` (${e.transactionHash})` : ''}, attempt ${e.attempt}\n`,
            )
            if ((e.type === 'mined' || e.type === 'reverted') && e.blockNumber)
              depth.mined({ chainId: e.chainId, blockNumber: BigInt(e.blockNumber) })
            if (e.type === 'final' && e.blockNumber) depth.final(BigInt(e.blockNumber))
            else if (e.type === 'final' || e.type === 'dropped') depth.stop()
          },
        })
      } finally {
        depth.stop()
      }
    }
    const stdin = params.stdin ?? (() => readFileSync(0, 'utf8'))
    /** The signer for the chain's runtime, from the environment; undefined when no key is set. */
    const signerFor = (chain: ChainDescription): IntentSigner | undefined => signerFrom(chain.chainType, env)

    switch (command) {
      case 'validate': {
        noArguments(rest)
        const intent = readIntent(values, stdin)
        return print(
          intent.mode === 'account' ? await sendAccountIntent('validate', intent) : await client.validate(intent),
        )
      }
      case 'execute': {
        noArguments(rest)
        let intent: AnyIntentInput = readIntent(values, stdin)
        if (intent.mode === 'account') {
          let result = await sendAccountIntent('execute', intent)
          if (values.wait && result.action === 'retry' && (result.status === '0xF3' || result.status === '0xF8'))
            result = await wait(result)
          return print(result)
        }
        const hasKey = Boolean(env.INTENT_SIGNER_PRIVATE_KEY?.trim() || env.INTENT_SIGNER_SOLANA_KEY?.trim())
        if (intent.signature === undefined && !values.unsigned && hasKey) {
          // A chain the gateway does not serve is answered by the gateway (421, exit 3).
          const chain = await client.getChain().catch((err: unknown) => {
            if (err instanceof GatewayClientError && err.code === 'INVALID_ARGUMENT') return undefined
            throw err
          })
          const signer = chain && signerFor(chain)
          if (chain && signer) intent = { ...intent, signature: await signIntent({ intent, chain, signer }) }
        }
        let result = await client.execute(intent, respondAsync)
        if (values.wait && result.action === 'retry' && (result.status === '0xF3' || result.status === '0xF8'))
          result = await wait(result)
        return print(result)
      }
      case 'sign': {
        noArguments(rest)
        const intent = readIntent(values, stdin)
        const chain = await client.getChain()
        const signer = signerFor(chain)
        if (!signer)
          throw new UsageError(
            `no key to sign with: set ${chain.chainType === 'solana' ? 'INTENT_SIGNER_SOLANA_KEY' : 'INTENT_SIGNER_PRIVATE_KEY'}`,
          )
        const signature = await signIntent({ intent, chain, signer })
        const body = { ...toIntentBody(intent), signature }
        stdout.write(
          json
            ? `${toJson({ chainId: chain.chainId, signer: signer.address, intentHash: hashIntent(intent, chain), signature, intent: body })}\n`
            : `${signature}\n`,
        )
        return exitCodes.success
      }
      case 'hash': {
        noArguments(rest)
        const intent = readIntent(values, stdin)
        const chain = values['chain-type'] ? offlineChain(values) : await client.getChain()
        const intentHash = hashIntent(intent, chain)
        stdout.write(json ? `${toJson({ chainType: chain.chainType, intentHash })}\n` : `${intentHash}\n`)
        return exitCodes.success
      }
      case 'status': {
        const [intentHash, ...extra] = rest
        if (!intentHash || extra.length > 0)
          throw new UsageError('status takes one argument: the intent hash (0x + 64 hex digits)')
        if (!/^0x[0-9a-fA-F]{64}$/.test(intentHash))
          throw new UsageError('the intent hash must be 0x followed by 64 hex digits')
        return print(values.wait ? await wait(intentHash) : await client.getIntent(intentHash))
      }
      case 'account': {
        const [address, ...extra] = rest
        if (!address || extra.length > 0)
          throw new UsageError('account takes one argument: the EVM address (0x + 40 hex digits)')
        if (!/^0x[0-9a-fA-F]{40}$/.test(address))
          throw new UsageError('the account must be an EVM address: 0x followed by 40 hex digits')
        const state = await client.account(address)
        if (json) stdout.write(`${toJson(state)}\n`)
        else {
          const code =
            state.code === 'none'
              ? 'none (an EOA: its first account-mode intent carries an authorization)'
              : state.code === 'contract'
                ? 'contract (account mode refused)'
                : `delegation to ${state.delegatedTo}`
          stdout.write(
            `${table([
              ['account', state.address],
              ['chain', state.chainId],
              ['delegated', state.delegated ? 'yes: account-mode intents run from it as they are' : 'no'],
              ['code', code],
              ['delegate', state.accountDelegate ?? 'none: this chain serves executor mode only'],
              ['nonce', state.nonce],
            ])}\n`,
          )
        }
        return exitCodes.success
      }
      case 'codes': {
        if (rest.length > 1) throw new UsageError('codes takes at most one argument: a code such as 0x54')
        const wanted = rest[0]
        if (wanted !== undefined && !/^0x[0-9a-fA-F]{2}$/.test(wanted))
          throw new UsageError('a code is 0x followed by two hex digits, e.g. 0x54')
        const codes = (await client.statusCodes()).filter(
          (c) => wanted === undefined || c.code === wanted.toUpperCase().replace('0X', '0x'),
        )
        if (json) stdout.write(`${toJson(wanted === undefined ? codes : codes[0])}\n`)
        else
          stdout.write(
            `${codes.map((c) => `${c.code}  ${c.httpStatus}  ${c.statusName.padEnd(28)}  ${c.description}`).join('\n')}\n`,
          )
        return exitCodes.success
      }
      case 'chains': {
        noArguments(rest)
        const list = await client.listChains()
        if (json) stdout.write(`${toJson(list)}\n`)
        else {
          stdout.write(
            `${list.chains
              .map((c) =>
                table([
                  ['chain', `${c.chainId}${c.chainId === list.defaultChainId ? ' (default)' : ''}`],
                  ['runtime', c.chainType],
                  ['name', c.name],
                  ['available', c.available === false ? `no: ${c.unavailableReason ?? ''}` : 'yes'],
                  ['executor', c.contracts.executor],
                  ['validator', c.contracts.validator],
                  ['registry', c.contracts.registry],
                  ['account delegate', c.contracts.accountDelegate],
                  ['relayer', c.relayer ?? 'none (validate only)'],
                ]),
              )
              .join('\n\n')}\n`,
          )
        }
        return exitCodes.success
      }
    }
    throw new UsageError(`unknown command ${command}`)
  } catch (err) {
    if (err instanceof UsageError) return fail(exitCodes.usage, 'USAGE', err.message)
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      return fail(exitCodes.usage, 'USAGE', `${(err as Error).message} (see --help)`)
    if (err instanceof GatewayClientError) {
      const usageFault = err.code === 'INVALID_INTENT' || err.code === 'INVALID_ARGUMENT'
      // Name the flag that sets the field, for people who gave the intent as flags.
      const flag = err.code === 'INVALID_INTENT' && err.field !== undefined ? flagOf[err.field] : undefined
      // A gateway that answers but lacks the route (GET /accounts on an older one) refused the request: exit 3.
      const code = usageFault ? exitCodes.usage : err.code === 'UNSUPPORTED' ? exitCodes.refused : exitCodes.unreachable
      return fail(code, err.code, flag ? `${err.message} (${flag})` : err.message)
    }
    return fail(exitCodes.internal, 'INTERNAL', `unexpected error: ${(err as Error)?.stack ?? String(err)}`)
  }
}

/** m of an answer: the chain's confirmation depth when above 1. */
function depthFrom(result: GatewayResult): number | undefined {
  const required = (result.body as { confirmationsRequired?: unknown }).confirmationsRequired
  return typeof required === 'number' ? required : undefined
}

/** What --wait is waiting for, as a poll's answer says it: the receipt, then the confirmations. */
function progressOf(result: GatewayResult, depth: Pick<ConfirmationsFollower, 'required' | 'last'>): string {
  const settled = result.state === 'mined' || result.state === 'reverted'
  if (!settled || result.blockNumber === undefined)
    return result.state === 'dropped' ? 'dropped' : 'waiting for the receipt'
  const where = `${result.state} in block ${result.blockNumber}`
  if (result.body.final !== false)
    return depth.required === undefined
      ? `${where}, final`
      : `${where}, final: ${depth.required} of ${depth.required} confirmations`
  if (depth.required === undefined) return `${where}, waiting for confirmations`
  return depth.last === undefined
    ? `${where}, waiting for ${depth.required} confirmations`
    : `${where}: ${depth.last} of ${depth.required} confirmations`
}

function noArguments(rest: string[]) {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`)
}

/** A key from the environment, checked without ever echoing it. */
function evmKey(env: Record<string, string | undefined>, name: string): Hex | undefined {
  const value = env[name]?.trim()
  if (!value) return undefined
  const key = (value.startsWith('0x') ? value : `0x${value}`) as Hex
  if (!isHex(key) || key.length !== 66)
    throw new UsageError(`${name} must be a 32-byte key: 0x followed by 64 hex digits (its value is not shown)`)
  return key
}

function signerFrom(chainType: ChainType, env: Record<string, string | undefined>): IntentSigner | undefined {
  if (chainType === 'evm') {
    const key = evmKey(env, 'INTENT_SIGNER_PRIVATE_KEY')
    return key ? privateKeyToAccount(key) : undefined
  }
  if (chainType === 'solana') {
    const key = env.INTENT_SIGNER_SOLANA_KEY?.trim()
    if (!key) return undefined
    try {
      return createSolanaSigner(key)
    } catch {
      throw new UsageError(
        "INTENT_SIGNER_SOLANA_KEY must be a Solana secret key: a keypair file's JSON array of 64 bytes, or 0x hex (its value is not shown)",
      )
    }
  }
  return undefined
}

function paymentFrom(values: Record<string, unknown>, env: Record<string, string | undefined>): PaymentOptions {
  const key = evmKey(env, 'INTENT_PAYER_PRIVATE_KEY')
  if (!key) throw new UsageError('--pay needs INTENT_PAYER_PRIVATE_KEY: the EVM key that pays x402 prices')
  const allowedAssets: SpendControlAsset[] = ((values['allow-asset'] as string[] | undefined) ?? []).map((spec) => {
    const match = /^([a-z0-9-]+:[A-Za-z0-9-]+)\/([^=]+)(?:=(\d+))?$/.exec(spec)
    if (!match)
      throw new UsageError(
        `--allow-asset ${spec}: write <network>/<asset>[=<max atomic units>], e.g. eip155:84532/0x036C...=100000`,
      )
    return {
      network: match[1] as `${string}:${string}`,
      asset: match[2]!,
      ...(match[3] ? { maxAmountPerPayment: match[3] } : {}),
    }
  })
  const maxUsd = values['max-usd'] as string | undefined
  if (maxUsd !== undefined && !/^\d+(\.\d+)?$/.test(maxUsd))
    throw new UsageError('--max-usd must be an amount of dollars, e.g. 0.10')
  return {
    signer: privateKeyToAccount(key),
    ...(maxUsd !== undefined || allowedAssets.length > 0
      ? {
          spendControls: {
            ...(maxUsd !== undefined ? { maxAmountPerPayment: `$${maxUsd}` } : {}),
            ...(allowedAssets.length > 0 ? { allowedAssets } : {}),
          },
        }
      : {}),
  }
}

function offlineChain(values: Record<string, unknown>) {
  const chainType = values['chain-type'] as string
  if (chainType === 'evm' || chainType === 'sui') return { chainType } as const
  if (chainType === 'solana') {
    if (typeof values.program !== 'string' || typeof values.config !== 'string')
      throw new UsageError('--chain-type solana needs --program <program id> and --config <config account>')
    return { chainType, contracts: { executor: values.program, registry: values.config } } as const
  }
  throw new UsageError('--chain-type must be evm, solana or sui')
}

/** Runs the gateway (tsx src/main.ts) in the foreground; Ctrl-C and SIGTERM reach it and it cleans up. */
async function start(params: RunCliParameters, port: string | undefined): Promise<number> {
  const root = findRepository(params.cwd ?? process.cwd())
  if (!root)
    throw new UsageError(
      'start runs the gateway from its repository: run it inside an Intent Gateway checkout (where src/main.ts is)',
    )
  if (port !== undefined && !/^\d+$/.test(port)) throw new UsageError('--port must be a number')
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...params.env, ...(port !== undefined ? { PORT: port } : {}) },
    stdio: ['ignore', 'inherit', 'inherit'],
    // Its own process group: a terminal's Ctrl-C reaches only this process, which passes it on
    // once (a second SIGINT would cut the gateway's shutdown and leave the devnet running).
    detached: true,
  })
  let forwarded = false
  const forward = (signal: NodeJS.Signals) => () => {
    if (forwarded) return
    forwarded = true
    child.kill(signal)
  }
  const onInt = forward('SIGINT')
  const onTerm = forward('SIGTERM')
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject)
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + 2 : exitCodes.internal)))
    })
  } finally {
    process.off('SIGINT', onInt)
    process.off('SIGTERM', onTerm)
  }
}
