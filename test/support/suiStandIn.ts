// A local stand-in for a Sui full node's gRPC API as browsers and @mysten/sui's SuiGrpcClient
// reach it: grpc-web over HTTP/1.1 (length-prefixed binary protobuf frames, status in headers or a
// trailer frame). Every response is a fixture from test/fixtures/sui parsed and encoded with the
// SDK's own generated message types. It does not run Move: what the module would answer is
// scripted by each test (`answers`), and the transactions it receives are kept for the tests to
// decode. The relayer's transaction signature is verified, as a node would.
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fromBase58, toBase58 } from '@mysten/bcs'
import { GrpcTypes } from '@mysten/sui/grpc'
import { Transaction, TransactionDataBuilder } from '@mysten/sui/transactions'
import { verifyTransactionSignature } from '@mysten/sui/verify'

type Json = any

const fixture = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../fixtures/sui/${name}.json`, import.meta.url), 'utf8'))
const clone = <T>(value: T): T => structuredClone(value)

/** What the Move module (or the node) answers to one call. */
export type SuiAnswer =
  /** validate returns this u8. */
  | { status: number }
  /** execute (or its simulation) succeeds. */
  | { success: true }
  /** The module aborts with this code; `form` says how the node reports it. */
  | { abort: number; form?: 'structured' | 'debug' | 'runtime'; module?: string }

/** A fault at the transport level, for one method or all. */
export type SuiFault =
  | { kind: 'hang' }
  | { kind: 'drop' }
  | { kind: 'grpc'; code: number; message: string }
  | { kind: 'http'; status: number }

export type SuiCall = {
  method: string
  request: Json
  transaction?: ReturnType<Transaction['getData']>
  bytes?: Uint8Array
}

export type SuiStandIn = {
  url: string
  packageId: string
  hubId: string
  hubInitialVersion: string
  policyId: string
  policyInitialVersion: string
  /** An object of another type, for the wrong-policy case. */
  otherObjectId: string
  answers: { validate: SuiAnswer; simulateExecute: SuiAnswer; execute: SuiAnswer }
  /** Faults by gRPC method name (e.g. `SimulateTransaction`), or `*` for every method. */
  faults: Map<string, SuiFault>
  calls: SuiCall[]
  /** False: ExecuteTransaction answers before a checkpoint includes the transaction (GetTransaction has it). */
  checkpointOnExecute: boolean
  /** Digests the node executed, for GetTransaction. */
  executed: Map<string, Json>
  /** Makes the node forget executed transactions (GetTransaction answers NOT_FOUND). */
  forget(): void
  /** Coins split off the relayer's gas coin (sponsorship coins): their current versions, by object id. */
  coins: Map<string, bigint>
  /** Each split, in order: the new coin and its amount in MIST. */
  splits: Array<{ objectId: string; amount: bigint }>
  close(): Promise<void>
}

const grpcOk = 0
const grpcNotFound = 5
const grpcInvalidArgument = 3

export async function startSuiStandIn({ relayer }: { relayer: string }): Promise<SuiStandIn> {
  const hex = (byte: string) => `0x${byte.repeat(32)}`
  const packageId = '0x4a7b2c1d9e8f00112233445566778899aabbccddeeff00112233445566778899'
  const standIn: Omit<SuiStandIn, 'url' | 'close'> = {
    packageId,
    hubId: hex('c1'),
    hubInitialVersion: '17',
    policyId: hex('9e'),
    policyInitialVersion: '23',
    otherObjectId: hex('0d'),
    answers: { validate: { status: 0x01 }, simulateExecute: { success: true }, execute: { success: true } },
    faults: new Map(),
    checkpointOnExecute: true,
    calls: [],
    executed: new Map(),
    coins: new Map(),
    splits: [],
    forget() {
      this.executed.clear()
    },
  }
  let coinVersion = 100n
  const coinId = hex('ce')
  const hanging = new Set<ServerResponse>()

  const objects = fixture('batchGetObjects')
  function objectResult(id: string): Json {
    const t = objects.templates
    if (id === packageId) return { ...clone(t.package), object: { ...t.package.object, objectId: id } }
    if (id === standIn.hubId)
      return {
        object: {
          ...clone(t.shared.object),
          objectId: id,
          objectType: `${packageId}::intents::Hub`,
          owner: { kind: 'SHARED', version: standIn.hubInitialVersion },
        },
      }
    if (id === standIn.policyId)
      return {
        object: {
          ...clone(t.shared.object),
          objectId: id,
          objectType: `${packageId}::intents::Policy`,
          owner: { kind: 'SHARED', version: standIn.policyInitialVersion },
        },
      }
    if (id === standIn.otherObjectId)
      return {
        object: {
          ...clone(t.shared.object),
          objectId: id,
          objectType: '0x2::coin::Coin<0x2::sui::SUI>',
          owner: { kind: 'SHARED', version: '5' },
        },
      }
    return clone(t.missing)
  }

  function failedEffects(answer: Extract<SuiAnswer, { abort: number }>, fn: string): Json {
    const response = fixture('simulateAbort').response
    const error = response.transaction.effects.status.error
    const module = answer.module ?? 'intents'
    const bare = packageId.slice(2)
    error.abort.abortCode = String(answer.abort)
    error.abort.location.module = module
    error.abort.location.functionName = fn
    error.description = `MoveAbort(MoveLocation { module: ModuleId { address: ${bare}, name: Identifier("${module}") }, function: 2, instruction: 14, function_name: Some("${fn}") }, ${answer.abort}) in command 0`
    if (answer.form === 'debug' || answer.form === 'runtime') {
      // A node or proxy that passes only the text on: no structured detail.
      delete error.abort
      delete error.kind
      if (answer.form === 'runtime')
        error.description = `Move Runtime Abort. Location: ${packageId}::${module}::${fn} (function index 2) at offset 14, Abort Code: ${answer.abort} in command 0`
    }
    return response
  }

  function simulate(request: Json, call: SuiCall): Json {
    const bytes: Uint8Array = request.transaction.bcs.value
    const data = Transaction.from(bytes).getData()
    call.transaction = data
    call.bytes = bytes
    const fn = data.commands[0]?.MoveCall?.function
    const answer = fn === 'validate' ? standIn.answers.validate : standIn.answers.simulateExecute
    if ('abort' in answer) return failedEffects(answer, fn ?? '?')
    const response = fixture('simulateValidate').response
    if ('status' in answer)
      response.commandOutputs[0].returnValues[0].value.value = Buffer.from([answer.status]).toString('base64')
    else response.commandOutputs = [{ returnValues: [] }]
    return response
  }

  async function execute(request: Json, call: SuiCall): Promise<Json> {
    const bytes: Uint8Array = request.transaction.bcs.value
    call.transaction = Transaction.from(bytes).getData()
    call.bytes = bytes
    // As a node does: one valid signature by the sender and, when another account owns the gas (a
    // sponsored transaction), one by the gas owner; no other.
    const required = new Set([call.transaction.sender, call.transaction.gasData.owner ?? call.transaction.sender])
    const signers: string[] = []
    for (const s of request.signatures as Json[]) {
      const signer = await verifyTransactionSignature(bytes, Buffer.from(s.bcs.value).toString('base64')).catch(
        () => undefined,
      )
      if (!signer) throw Object.assign(new Error('Invalid user signature'), { grpcCode: grpcInvalidArgument })
      signers.push(signer.toSuiAddress())
    }
    if (
      signers.length !== required.size ||
      !signers.every((a) => required.has(a)) ||
      new Set(signers).size !== signers.length
    )
      throw Object.assign(new Error('Invalid user signature: the signers are not the sender and the gas owner'), {
        grpcCode: grpcInvalidArgument,
      })
    const digest = TransactionDataBuilder.getDigestFromBytes(bytes)
    const gasCoin = call.transaction.gasData.payment?.[0]
    const current = gasCoin && (gasCoin.objectId === coinId ? coinVersion : standIn.coins.get(gasCoin.objectId))
    if (!gasCoin || current === undefined || BigInt(gasCoin.version) !== current)
      throw Object.assign(
        new Error(
          `Object ${gasCoin?.objectId ?? coinId} is not available for consumption, its current version: ${current ?? 'none'}`,
        ),
        { grpcCode: grpcInvalidArgument },
      )
    if (gasCoin.objectId === coinId) coinVersion++
    else standIn.coins.set(gasCoin.objectId, current! + 1n)
    // The relayer splitting a coin off its gas coin (SplitCoins(GasCoin, [amount]) then TransferObjects to itself): the new coin is created.
    const split = call.transaction.commands[0]?.SplitCoins
    if (split && split.coin.$kind === 'GasCoin') {
      const created = `0x${Buffer.from(fromBase58(digest)).toString('hex')}`
      const version = coinVersion
      standIn.coins.set(created, version)
      standIn.splits.push({
        objectId: created,
        amount: BigInt(
          Buffer.from(
            call.transaction.inputs[(split.amounts[0] as { Input: number }).Input]!.Pure!.bytes,
            'base64',
          ).readBigUInt64LE(),
        ),
      })
      const response = fixture('executeTransaction').response
      response.transaction.digest = digest
      delete response.transaction.events
      response.transaction.effects.changedObjects = [
        {
          objectId: created,
          inputState: 'INPUT_OBJECT_STATE_DOES_NOT_EXIST',
          outputState: 'OUTPUT_OBJECT_STATE_OBJECT_WRITE',
          outputVersion: String(version),
          outputDigest: toBase58(new Uint8Array(32).fill(7)),
          outputOwner: { kind: 'ADDRESS', address: call.transaction.sender },
          idOperation: 'CREATED',
          objectType: '0x2::coin::Coin<0x2::sui::SUI>',
        },
      ]
      standIn.executed.set(digest, clone(response.transaction))
      return response
    }
    const answer = standIn.answers.execute
    const response = fixture('executeTransaction').response
    response.transaction.digest = digest
    if ('abort' in answer) {
      response.transaction.effects = failedEffects(answer, 'execute').transaction.effects
      delete response.transaction.events
    } else {
      response.transaction.events.events[0].sender = call.transaction.sender
    }
    standIn.executed.set(digest, clone(response.transaction))
    if (!standIn.checkpointOnExecute) delete response.transaction.checkpoint
    return response
  }

  const handlers: Record<string, (request: Json, call: SuiCall) => Json | Promise<Json>> = {
    'sui.rpc.v2.TransactionExecutionService/SimulateTransaction': simulate,
    'sui.rpc.v2.TransactionExecutionService/ExecuteTransaction': execute,
    'sui.rpc.v2.LedgerService/BatchGetObjects': (request) => ({
      objects: request.requests.map((r: Json) => objectResult(r.objectId)),
    }),
    'sui.rpc.v2.LedgerService/GetEpoch': () => fixture('getEpoch').response,
    'sui.rpc.v2.LedgerService/GetServiceInfo': () => fixture('getServiceInfo').response,
    'sui.rpc.v2.LedgerService/GetTransaction': (request) => {
      const transaction = standIn.executed.get(request.digest)
      if (!transaction)
        throw Object.assign(new Error(`Transaction ${request.digest} not found`), { grpcCode: grpcNotFound })
      return { transaction }
    },
    'sui.rpc.v2.StateService/ListOwnedObjects': (request) => {
      const response = fixture('listOwnedObjects').response
      Object.assign(response.objects[0], {
        objectId: coinId,
        version: String(coinVersion),
        digest: toBase58(new Uint8Array(32).fill(Number(coinVersion % 256n))),
      })
      response.objects[0].owner.address = request.owner
      return request.owner === relayer ? response : { objects: [] }
    },
  }
  const services = [GrpcTypes.TransactionExecutionService, GrpcTypes.LedgerService, GrpcTypes.StateService]

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    // SuiGrpcClient's default transport speaks grpc-web-text (base64 frames); binary is grpc-web+proto.
    const contentType = req.headers['content-type']
    const text = contentType === 'application/grpc-web-text'
    const raw = Buffer.concat(chunks)
    const body = text ? Buffer.from(raw.toString('ascii'), 'base64') : raw
    const [serviceName, methodName] = (req.url ?? '').replace(/^\//, '').split('/') as [string, string]
    const fault = standIn.faults.get(methodName) ?? standIn.faults.get('*')
    if (fault?.kind === 'hang') {
      hanging.add(res)
      return
    }
    if (fault?.kind === 'drop') return void req.socket.destroy()
    if (fault?.kind === 'http')
      return void res.writeHead(fault.status, { 'content-type': 'text/plain' }).end('upstream unavailable')
    if (fault?.kind === 'grpc') return trailersOnly(res, fault.code, fault.message, text)

    const service = services.find((s) => s.typeName === serviceName)
    const method = service?.methods.find((m) => m.name === methodName)
    const handler = handlers[`${serviceName}/${methodName}`]
    if (!method || !handler || !(text || contentType === 'application/grpc-web+proto'))
      return trailersOnly(res, 12, `unimplemented: ${req.url}`, text)
    // One data frame: flag 0, big-endian length, the message.
    const request = method.I.fromBinary(body.subarray(5, 5 + body.readUInt32BE(1))) as Json
    const call: SuiCall = { method: methodName, request }
    standIn.calls.push(call)
    let json: Json
    try {
      json = await handler(request, call)
    } catch (err) {
      const e = err as Error & { grpcCode?: number }
      if (e.grpcCode === undefined) throw err
      return trailersOnly(res, e.grpcCode, e.message, text)
    }
    // fromJson checks the fixture against the generated schema (unknown fields are refused).
    const message = method.O.fromJson(json)
    const payload = method.O.toBinary(message)
    const trailer = Buffer.from(`grpc-status:${grpcOk}\r\ngrpc-message:\r\n`)
    const frames = Buffer.concat([frame(0x00, payload), frame(0x80, trailer)])
    res.writeHead(200, { 'content-type': text ? 'application/grpc-web-text' : 'application/grpc-web+proto' })
    res.end(text ? frames.toString('base64') : frames)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => trailersOnly(res, 13, err instanceof Error ? err.message : String(err)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  })
}

function frame(flag: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(5)
  header[0] = flag
  header.writeUInt32BE(payload.length, 1)
  return Buffer.concat([header, payload])
}

function trailersOnly(res: ServerResponse, code: number, message: string, text = true) {
  res.writeHead(200, {
    'content-type': text ? 'application/grpc-web-text' : 'application/grpc-web+proto',
    'grpc-status': String(code),
    'grpc-message': encodeURIComponent(message),
  })
  res.end()
}
