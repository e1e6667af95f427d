// A typed client of Intent Gateway's HTTP API. Refused intents are values (GatewayResult, with the
// next `action`); only transport faults and misuse throw (GatewayClientError, with the cause).
import { type Address, type Hex, isAddress, isAddressEqual } from 'viem'
import type { AccountState } from './accountState.ts'
import type { ChainDescription } from './chainDescription.ts'
import { createPayer } from './createPayer.ts'
import { evmChainNumber } from './evm/evmChainNumber.ts'
import { followIntentEvents } from './followIntentEvents.ts'
import { GatewayClientError } from './gatewayClientError.ts'
import type { GatewayResult } from './gatewayResult.ts'
import { hashIntent } from './hashIntent.ts'
import type { IntentEvent } from './intentEvent.ts'
import type { AnyIntentBody, AnyIntentInput, IntentAuthorization, IntentBody, IntentMode } from './intentInput.ts'
import type { EvmIntentSigner, IntentSigner, SolanaIntentSigner } from './intentSigner.ts'
import type { PaymentOptions } from './paymentOptions.ts'
import { signAccountAuthorization } from './signAccountAuthorization.ts'
import { signIntent } from './signIntent.ts'
import { signAccountMessage } from './solana/signAccountMessage.ts'
import { toGatewayResult } from './toGatewayResult.ts'
import { toIntentBody } from './toIntentBody.ts'

export type GatewayClientOptions = {
  /** The gateway's base URL, e.g. http://127.0.0.1:3000. */
  url: string
  /** Sent as `Authorization: Bearer <apiKey>`; never logged or echoed. */
  apiKey?: string
  /** Signs intents that carry no `signature` before execute (EVM: a viem LocalAccount). */
  account?: IntentSigner
  /**
   * The mode of intents that name none (EVM): `account` runs them from the sender's own address
   * (EIP-7702); left out, the gateway's default (`executor`).
   */
  mode?: IntentMode
  /**
   * The account delegate (IntentAccount) your EOA may be delegated to. An EIP-7702 authorization
   * hands the EOA's code to that contract, so when this is set the client signs none naming any
   * other address, whatever the gateway says its chain's delegate is (a foreign or compromised
   * gateway could otherwise name a contract of its own). Left out: the gateway's
   * `contracts.accountDelegate` is trusted.
   */
  accountDelegate?: Address
  /** Pays the gateway's x402 prices (402 0x55); without it a price is answered as `action: 'pay'`. */
  payment?: PaymentOptions
  /** The chain used when a call names none (X-Chain-Id); else the gateway's default chain. */
  chainId?: string
  /** Time limit of each HTTP request, default 60 s (execute waits for the receipt on the gateway). */
  timeoutMs?: number
  fetch?: typeof fetch
}

export type CallOptions = { chainId?: string }

export type SendOptions = CallOptions & {
  /** Sign the intent with the client's `account` when it carries no signature (default true). */
  sign?: boolean
  /**
   * Account mode: when the client's `account` is the sender and GET /accounts/{sender} says it is
   * an EOA not delegated yet, sign its EIP-7702 authorization to the chain's delegate and send it
   * with the intent (default true). False: send the intent as given.
   */
  authorize?: boolean
  /**
   * Execute only: ask the gateway to answer once the node holds the transaction, 202 (0xF3, action
   * `retry`, with its `location`), rather than once it is mined (RFC 7240 `Prefer: respond-async`).
   * Follow it with `waitForIntent`. A refusal is answered at once as without it.
   */
  respondAsync?: boolean
}

export type WaitOptions = CallOptions & {
  /** How long to wait, default 60 s; then the last answer (still `retry`) is returned. */
  timeoutMs?: number
  /** Between polls (when polling), default 500 ms (or the answer's Retry-After when longer). */
  intervalMs?: number
  /** Each GET /intents/{intentHash} answer the wait reads (`attempt` counts them). */
  onProgress?: (progress: { attempt: number; elapsedMs: number; result: GatewayResult }) => void
  /** Each event of the execution, as the gateway's event stream pushes it (not called while polling). */
  onEvent?: (event: IntentEvent) => void
  /**
   * Follow the gateway's event stream (GET /intents/{intentHash}/events), default true; polls when
   * false, or when the stream is refused or unusable (an older gateway, a proxy that buffers).
   */
  stream?: boolean
}

export type StatusCodeEntry = {
  code: string
  statusName: string
  description: string
  httpStatus: number
  reserved: boolean
}

export type GatewayClient = ReturnType<typeof createGatewayClient>

export function createGatewayClient(options: GatewayClientOptions) {
  let base: URL
  try {
    base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`)
  } catch (err) {
    throw new GatewayClientError(`The gateway URL ${JSON.stringify(options.url)} is not a URL`, {
      code: 'INVALID_ARGUMENT',
      cause: err,
    })
  }
  const fetchImpl = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 60_000
  const payer = options.payment ? createPayer(options.payment, fetchImpl) : undefined
  const chains = new Map<string, ChainDescription>()
  let defaultChainId: string | undefined

  /** The headers of every request: the API key and the chain. */
  function headersFor(chainId: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {}
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`
    const chain = chainId ?? options.chainId
    if (chain) headers['x-chain-id'] = chain
    return headers
  }

  async function send(
    method: string,
    path: string,
    { body, chainId, extra }: { body?: unknown; chainId?: string | undefined; extra?: Record<string, string> } = {},
  ): Promise<Response> {
    const url = new URL(path.replace(/^\//, ''), base).toString()
    const headers: Record<string, string> = { accept: 'application/json', ...headersFor(chainId), ...extra }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const init: RequestInit = {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    }
    const response = await fetchOrFault(url, init)
    return response
  }

  async function fetchOrFault(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetchImpl(url, init)
    } catch (err) {
      const name = (err as { name?: string }).name
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new GatewayClientError(`The gateway at ${base.origin} did not answer within ${timeoutMs} ms`, {
          code: 'TIMEOUT',
          cause: err,
        })
      }
      const reason = (err as { cause?: { code?: string; message?: string } }).cause
      throw new GatewayClientError(`The gateway at ${base.origin} cannot be reached`, {
        code: 'UNREACHABLE',
        details: reason?.code ?? reason?.message ?? String(err),
        cause: err,
      })
    }
  }

  /** Sends an intent; pays a gateway price when a payer is configured. */
  async function sendIntent(
    path: string,
    body: unknown,
    chainId: string | undefined,
    extra: Record<string, string> = {},
  ): Promise<GatewayResult> {
    const response = await send('POST', path, { body, chainId, extra })
    const code = response.headers.get('x-erc1066-status')
    if (response.status === 402 && payer && (code === '0x55' || code === '0x52')) {
      const url = response.url || new URL(path.replace(/^\//, ''), base).toString()
      const headers: Record<string, string> = {
        accept: 'application/json',
        'content-type': 'application/json',
        ...extra,
      }
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`
      const chain = chainId ?? options.chainId
      if (chain) headers['x-chain-id'] = chain
      const paid = await payer.pay(response.clone(), url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      })
      if ('response' in paid) return toGatewayResult(paid.response)
      return toGatewayResult(response, { paymentError: paid.paymentError })
    }
    return toGatewayResult(response)
  }

  async function getJson<T>(path: string, chainId?: string): Promise<T> {
    const response = await send('GET', path, { chainId })
    if (response.status !== 200) {
      const result = await toGatewayResult(response)
      throw new GatewayClientError(
        `GET ${path} answered ${response.status} (${result.status} ${result.statusName ?? ''})`.trim(),
        {
          code: response.status === 421 ? 'INVALID_ARGUMENT' : 'BAD_RESPONSE',
          details: result.detail,
        },
      )
    }
    try {
      return (await response.json()) as T
    } catch (err) {
      throw new GatewayClientError(`GET ${path} did not answer JSON`, { code: 'BAD_RESPONSE', cause: err })
    }
  }

  async function listChains(): Promise<{ defaultChainId: string | null; chains: ChainDescription[] }> {
    const list = await getJson<{ defaultChainId: string | null; chains: ChainDescription[] }>('/chains')
    for (const chain of list.chains) chains.set(chain.chainId, chain)
    defaultChainId = list.defaultChainId ?? (list.chains.length === 1 ? list.chains[0]!.chainId : undefined)
    return list
  }

  /** The chain's description (cached): the named chain, the client's, else the gateway's default. */
  async function getChain(chainId?: string): Promise<ChainDescription> {
    const wanted = chainId ?? options.chainId
    if (wanted === undefined) {
      if (defaultChainId === undefined) await listChains()
      if (defaultChainId === undefined)
        throw new GatewayClientError('The gateway serves several chains and has no default: name one (chainId)', {
          code: 'INVALID_ARGUMENT',
        })
      return chains.get(defaultChainId)!
    }
    const cached = chains.get(wanted) ?? [...chains.values()].find((c) => c.reference === wanted)
    if (cached) return cached
    const chain = await getJson<ChainDescription>(`/chains/${encodeURIComponent(wanted)}`)
    chains.set(wanted, chain)
    chains.set(chain.chainId, chain)
    return chain
  }

  async function getIntent(intentHash: string, call: CallOptions = {}): Promise<GatewayResult> {
    if (!/^0x[0-9a-fA-F]{64}$/.test(intentHash))
      throw new GatewayClientError('An intent hash is 0x followed by 64 hex digits', {
        code: 'INVALID_ARGUMENT',
        field: 'intentHash',
      })
    return toGatewayResult(await send('GET', `/intents/${intentHash}`, { chainId: call.chainId }))
  }

  /** The intent with the client's default mode when it names none. */
  function withMode(intent: AnyIntentInput): AnyIntentInput {
    if (typeof intent !== 'object' || intent === null || intent.mode !== undefined || options.mode === undefined)
      return intent
    return { ...intent, mode: options.mode }
  }

  /** The chain, or undefined for one the gateway does not serve (sent as is: the gateway answers 421, 0xA2). */
  function chainOrUndefined(chainId: string | undefined): Promise<ChainDescription | undefined> {
    return getChain(chainId).catch((err: unknown) => {
      if (err instanceof GatewayClientError && err.code === 'INVALID_ARGUMENT') return undefined
      throw err
    })
  }

  /** The chain's account delegate, as GET /chains/{chainId} names it; never one other than `options.accountDelegate`. */
  function delegateOf(chain: ChainDescription): string {
    const delegate = chain.contracts.accountDelegate
    if (!delegate)
      throw new GatewayClientError(`Chain ${chain.chainId} has no account delegate: it serves executor mode only`, {
        code: 'INVALID_ARGUMENT',
        field: 'mode',
      })
    if (
      options.accountDelegate &&
      !(isAddress(delegate, { strict: false }) && isAddressEqual(delegate, options.accountDelegate))
    ) {
      throw new GatewayClientError(
        `The gateway names ${delegate} as the account delegate of ${chain.chainId}, not ${options.accountDelegate} (the client's accountDelegate): no authorization signed`,
        {
          code: 'INVALID_ARGUMENT',
          field: 'accountDelegate',
        },
      )
    }
    return delegate
  }

  function solanaAccount(): SolanaIntentSigner | undefined {
    const account = options.account
    return account && 'chainType' in account && account.chainType === 'solana'
      ? (account as SolanaIntentSigner)
      : undefined
  }

  function evmAccount(): EvmIntentSigner | undefined {
    const account = options.account
    return account && 'signTypedData' in account ? account : undefined
  }

  async function getAccount(address: string, call: CallOptions = {}): Promise<AccountState> {
    if (typeof address !== 'string' || !isAddress(address, { strict: false })) {
      throw new GatewayClientError('An account is an EVM address: 0x followed by 40 hex digits', {
        code: 'INVALID_ARGUMENT',
        field: 'address',
      })
    }
    const response = await send('GET', `/accounts/${address}`, { chainId: call.chainId })
    if (response.status === 200) {
      try {
        return (await response.json()) as AccountState
      } catch (err) {
        throw new GatewayClientError(`GET /accounts/${address} did not answer JSON`, {
          code: 'BAD_RESPONSE',
          cause: err,
        })
      }
    }
    const result = await toGatewayResult(response)
    // A gateway from before GET /accounts answers the unknown route 404 0xA1 (not a route of this gateway).
    const unsupported = response.status === 404 && result.status === '0xA1'
    throw new GatewayClientError(
      `GET /accounts/${address} answered ${response.status} (${result.status} ${result.statusName ?? ''})`.trim(),
      {
        code: unsupported
          ? 'UNSUPPORTED'
          : response.status === 400 || response.status === 421
            ? 'INVALID_ARGUMENT'
            : 'BAD_RESPONSE',
        details: unsupported
          ? 'this gateway does not describe accounts (GET /accounts/{address}): sign the authorization yourself (signAuthorization with a nonce) and pass it as `authorization`'
          : result.detail,
      },
    )
  }

  /**
   * Account mode: signs the intent (the account's own domain, in the client's account: the sender
   * or a session key) and, when the client's account is the sender and the gateway says it is an
   * EOA not delegated yet, attaches its authorization. A delegated account, one delegated
   * elsewhere or a contract gets none: the gateway judges those (403 account-not-delegated).
   */
  async function prepareAccountIntent(body: AnyIntentBody, call: SendOptions) {
    const signer = evmAccount()
    if (!signer) return
    const wantsSignature = body.signature === undefined && call.sign !== false
    const wantsAuthorization =
      body.authorization === undefined &&
      call.authorize !== false &&
      isAddress(body.sender, { strict: false }) &&
      isAddressEqual(signer.address, body.sender as Address) &&
      signer.signAuthorization !== undefined
    if (!wantsSignature && !wantsAuthorization) return
    const chain = await chainOrUndefined(call.chainId)
    if (chain?.chainType !== 'evm') return
    if (wantsSignature) body.signature = await signIntent({ intent: body, chain, signer })
    if (!wantsAuthorization) return
    let state: AccountState
    try {
      state = await getAccount(body.sender, call)
    } catch (err) {
      // An older gateway: sent without; an undelegated sender is then answered 403 account-not-delegated.
      if (err instanceof GatewayClientError && err.code === 'UNSUPPORTED') return
      throw err
    }
    if (state.delegated || state.code !== 'none') return
    const delegate = delegateOf(chain)
    if (state.accountDelegate && !isAddressEqual(state.accountDelegate, delegate as Address)) {
      throw new GatewayClientError(
        `The gateway names two account delegates for ${chain.chainId}: ${delegate} (GET /chains) and ${state.accountDelegate} (GET /accounts); no authorization signed`,
        {
          code: 'BAD_RESPONSE',
        },
      )
    }
    body.authorization = await signAccountAuthorization({
      signer,
      chainId: evmChainNumber(chain),
      delegate,
      nonce: state.nonce,
    })
  }

  return {
    url: base.toString(),

    /**
     * POST /intents/validate: what the chain's validator says of the intent. In account mode the
     * account checks the signature itself (an unsigned intent is always 0xE5), so the intent is
     * signed with the client's `account` first, and an undelegated sender's authorization attached.
     */
    async validate(intent: AnyIntentInput, call: SendOptions = {}): Promise<GatewayResult> {
      const body = toIntentBody(withMode(intent))
      if (body.mode === 'account') await prepareAccountIntent(body, call)
      return sendIntent('/intents/validate', body, call.chainId)
    },

    /**
     * POST /intents/execute. With an `account` and no `signature` in the intent, the intent is
     * signed first for the chain it goes to (a 401 then means the chain refused that signature).
     * In account mode, the first intent of an EOA not delegated yet also carries its EIP-7702
     * authorization, signed here when the `account` is the sender (see SendOptions.authorize).
     */
    async execute(intent: AnyIntentInput, call: SendOptions = {}): Promise<GatewayResult> {
      const body = toIntentBody(withMode(intent))
      const prefer: Record<string, string> = call.respondAsync ? { prefer: 'respond-async' } : {}
      const solanaSigner = solanaAccount()
      if (body.mode === 'account' && solanaSigner && body.signature === undefined && call.sign !== false) {
        // Solana account mode: the gateway builds the transaction (the relayer its fee payer) and
        // answers 401 0xE5 with the message; the agent's wallet reads it, signs it, and sends the
        // signature back with the same intent.
        const chain = await chainOrUndefined(call.chainId)
        if (chain?.chainType === 'solana') {
          const asked = await sendIntent('/intents/execute', body, call.chainId, prefer)
          const message = asked.signing?.message
          if (
            asked.httpStatus !== 401 ||
            asked.status !== '0xE5' ||
            asked.signing?.mode !== 'account' ||
            typeof message !== 'string'
          )
            return asked
          body.signature = await signAccountMessage({
            message,
            intent: body as IntentBody,
            deployment: { programId: chain.contracts.executor, config: chain.contracts.registry },
            signer: solanaSigner,
          })
          return sendIntent('/intents/execute', body, call.chainId, prefer)
        }
      }
      if (body.mode === 'account') await prepareAccountIntent(body, call)
      else if (body.signature === undefined && options.account && call.sign !== false) {
        const chain = await chainOrUndefined(call.chainId)
        if (chain) body.signature = await signIntent({ intent: body, chain, signer: options.account })
      }
      return sendIntent('/intents/execute', body, call.chainId, prefer)
    },

    /**
     * GET /accounts/{address}: whether the address is delegated to the chain's account delegate
     * (account-mode intents run from it as they are), an EOA not delegated yet (its first intent
     * carries an authorization) or code account mode refuses, and its account nonce.
     */
    account: getAccount,

    /**
     * The client's `account`'s EIP-7702 authorization to the chain's account delegate, at its
     * current nonce (GET /accounts) unless `nonce` is given: what `authorization` carries.
     */
    async signAuthorization(
      call: CallOptions & { nonce?: number | bigint | string } = {},
    ): Promise<IntentAuthorization> {
      const signer = evmAccount()
      if (!signer)
        throw new GatewayClientError(
          'No EVM account to sign an authorization with: pass `account` to createGatewayClient',
          { code: 'INVALID_ARGUMENT' },
        )
      const chain = await getChain(call.chainId)
      const delegate = delegateOf(chain)
      const nonce = call.nonce ?? (await getAccount(signer.address, call)).nonce
      return signAccountAuthorization({ signer, chainId: evmChainNumber(chain), delegate, nonce })
    },

    getIntent,

    /**
     * Waits until the execution is settled or `timeoutMs` passes; answers the last result either
     * way (`action: 'retry'` when still pending). Follows the gateway's event stream and reads the
     * outcome once the last event came; polls GET /intents/{intentHash} (the 202's Location)
     * when the stream cannot be used.
     */
    async waitForIntent(target: string | GatewayResult, wait: WaitOptions = {}): Promise<GatewayResult> {
      const started = Date.now()
      const timeout = wait.timeoutMs ?? 60_000
      const interval = wait.intervalMs ?? 500
      let result: GatewayResult | undefined = typeof target === 'string' ? undefined : target
      const intentHash = typeof target === 'string' ? target : target.intentHash
      const chainId = wait.chainId ?? (typeof target === 'string' ? undefined : target.chainId)
      if (result && !pending(result)) return result
      if (!intentHash)
        throw new GatewayClientError('Nothing to wait for: the result carries no intent hash', {
          code: 'INVALID_ARGUMENT',
        })
      if (!/^0x[0-9a-fA-F]{64}$/.test(intentHash))
        throw new GatewayClientError('An intent hash is 0x followed by 64 hex digits', {
          code: 'INVALID_ARGUMENT',
          field: 'intentHash',
        })
      let attempt = 0
      const read = async () => {
        result = await getIntent(intentHash, chainId ? { chainId } : {})
        wait.onProgress?.({ attempt: ++attempt, elapsedMs: Date.now() - started, result })
        return result
      }
      if (wait.stream !== false) {
        const followed = await followIntentEvents({
          url: new URL(`intents/${intentHash}/events`, base).toString(),
          headers: headersFor(chainId),
          fetch: fetchImpl,
          deadline: started + timeout,
          onEvent: wait.onEvent,
        })
        // Timed out: the last answer, or the first one when there is none yet (as polling gives).
        if (followed.end === 'timeout') return result ?? (await read())
        // The last event came: the outcome, read once (still pending only if a new attempt began: polled below).
        if (followed.end === 'finished') {
          const outcome = await read()
          if (!pending(outcome)) return outcome
        }
      }
      for (;;) {
        if (result) {
          const elapsed = Date.now() - started
          if (elapsed >= timeout) return result
          const delay = Math.min(Math.max(interval, (result.retryAfter ?? 0) * 1000), timeout - elapsed)
          await new Promise((resolve) => setTimeout(resolve, delay))
        }
        const answer = await read()
        if (!pending(answer)) return answer
      }
    },

    listChains,
    getChain,

    /** GET /status-codes: the ERC-1066 → HTTP table the gateway answers by. */
    async statusCodes(): Promise<StatusCodeEntry[]> {
      return (await getJson<{ codes: StatusCodeEntry[] }>('/status-codes')).codes
    },

    /** The intent hash the gateway will answer for this intent on that chain. */
    async hashIntent(intent: AnyIntentInput, call: CallOptions = {}): Promise<Hex> {
      return hashIntent(withMode(intent), await getChain(call.chainId))
    },

    /** The intent's signature by the client's account, for the chain it goes to. */
    async signIntent(intent: AnyIntentInput, call: CallOptions = {}): Promise<Hex> {
      if (!options.account)
        throw new GatewayClientError('No account to sign with: pass `account` to createGatewayClient', {
          code: 'INVALID_ARGUMENT',
        })
      return signIntent({ intent: withMode(intent), chain: await getChain(call.chainId), signer: options.account })
    },
  }
}

/** Still settling: submitted and unconfirmed, or in flight from another request. */
function pending(result: GatewayResult) {
  return result.status === '0xF3' || result.status === '0xF8'
}
