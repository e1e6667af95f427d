// `npm run deploy:contracts` against a fresh anvil, as an operator runs it against a real chain:
// from a secp256k1 key inside a SoftHSM2 token (never readable), a local key and a KMS key (a local
// stand-in of KMS's protocol). Refused while the key cannot pay (saying how much it needs: exactly
// enough), then deployed through the CREATE2 proxy; found and left alone on a second run; waits
// for its confirmations; refused on a chain other than the RPC's, on code that is not the build's
// (or is, with another deployment's immutables), without the proxy; and a gateway started with
// nothing but the printed settings (and an RPC URL) executes a signed intent.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import {
  type Address,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  keccak256,
  parseEther,
  stringToHex,
  toFunctionSelector,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { derivePolicyId, saltOf } from '../../src/chains/derivePolicyId.ts'
import { runDeployCommand } from '../../src/chains/evm/deploy/runDeployCommand.ts'
import { createDevClients } from '../../src/chains/evm/devnet/deployContracts.ts'
import { devnetAccounts } from '../../src/chains/evm/devnet/devnetAccounts.ts'
import { type Anvil, startAnvil } from '../../src/chains/evm/devnet/startAnvil.ts'
import { intentTypedData } from '../../src/chains/evm/intentTypedData.ts'
import { demoCounterArtifact } from '../../src/contracts/demoCounterArtifact.ts'
import { intentAccountArtifact } from '../../src/contracts/intentAccountArtifact.ts'
import { intentBundlerArtifact } from '../../src/contracts/intentBundlerArtifact.ts'
import { intentExecutorArtifact } from '../../src/contracts/intentExecutorArtifact.ts'
import { intentLedgerArtifact } from '../../src/contracts/intentLedgerArtifact.ts'
import { policyRegistryArtifact } from '../../src/contracts/policyRegistryArtifact.ts'
import { createPkcs11Signer } from '../../src/signers/createPkcs11Signer.ts'
import { assertCommonHeaders } from '../support/assertCommonHeaders.ts'
import { startGatewayProcess } from '../support/gatewayProcess.ts'
import { startKmsStandIn } from '../support/kmsStandIn.ts'
import { createSoftHsmToken, pkcs11Binding, type SoftHsmToken, softHsmModule } from '../support/softHsm.ts'
import { post } from '../support/testGateway.ts'

const script = new URL('../../scripts/deployContracts.ts', import.meta.url).pathname
const tsx = import.meta.resolve('tsx')
const proxy = '0x4e59b44847b379578588920ca78fbf26c0b4956c' as Address
/** A PIN that cannot occur by chance in hex output. */
const pin = 'deploy-pin-Q7w'

type Run = { code: number | null; stdout: string; stderr: string }

/** The command in its own process, as `npm run deploy:contracts -- ...` runs it. */
function deployProcess(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsx, script, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The command in this process (the refusals: quicker, and the same code past the process boundary). */
async function deployHere(args: string[], env: Record<string, string>): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await runDeployCommand({
    argv: args,
    env,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
  })
  return { code, stdout, stderr }
}

/** The settings lines the text output prints: NAME='{"eip155:…":"0x…"}'. */
function printedSettings(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^([A-Z_]+)='(.*)'$/gm)].map((m) => [m[1]!, m[2]!]))
}

/** Where the CREATE2 proxy puts PolicyRegistry with this salt, computed here from the build. */
function registryAt(salt: Hex): Address {
  return getContractAddress({ opcode: 'CREATE2', from: proxy, salt, bytecode: policyRegistryArtifact.bytecode })
}

describe('npm run deploy:contracts', {
  skip: !softHsmModule
    ? 'SoftHSM2 is not installed (scripts/ensureTestTools.sh installs it)'
    : !pkcs11Binding
      ? 'the optional pkcs11js binding did not build at install (it needs a C++ compiler)'
      : false,
}, () => {
  let anvil: Anvil
  let token: SoftHsmToken
  let clients: ReturnType<typeof createDevClients>
  let hsmAddress: Address
  let hsmEnv: Record<string, string>
  let needed: bigint
  /** The settings the HSM run printed. */
  let settings: Record<string, string>
  const chain = 'eip155:31337'
  const defaultSalt = keccak256(stringToHex('intent-gateway'))
  const localEnv = { DEPLOYER_PRIVATE_KEY: devnetAccounts.deployer }
  const rpc = (method: string, params: unknown[]) =>
    clients.publicClient.request({ method: method as never, params: params as never })

  before(async () => {
    token = createSoftHsmToken(['deployer'], 'deployers', pin)
    anvil = await startAnvil()
    clients = createDevClients(anvil.rpcUrl, anvil.chainId)
    hsmAddress = createPkcs11Signer({ ...token, keyLabel: 'deployer' }).address
    hsmEnv = {
      SOFTHSM2_CONF: process.env.SOFTHSM2_CONF!,
      DEPLOYER_PKCS11_MODULE: token.modulePath,
      DEPLOYER_PKCS11_TOKEN: token.tokenLabel,
      DEPLOYER_PKCS11_PIN: pin,
      DEPLOYER_PKCS11_KEY_LABEL: 'deployer',
    }
  })
  after(async () => {
    await anvil?.stop()
    token?.remove()
  })

  it('refuses while the HSM key cannot pay, saying how much it needs, and sends nothing', async () => {
    const run = await deployProcess(['--chain', chain, '--rpc', anvil.rpcUrl, '--json'], hsmEnv)
    assert.equal(run.code, 1, run.stderr)
    const { error } = JSON.parse(run.stdout)
    assert.equal(error.code, 'DEPLOY_UNFUNDED')
    const match = new RegExp(`^The deployer ${hsmAddress} holds 0 ETH; deploying needs about ([0-9.]+) ETH$`).exec(
      error.message,
    )
    assert.ok(match, error.message)
    assert.match(
      error.details,
      /^PolicyRegistry, IntentExecutor, IntentAccount, IntentBundler: about \d+ gas at up to [0-9.]+ gwei\. Send it at least [0-9.]+ ETH more on eip155:31337 and run again \(nothing was sent\)\.$/,
    )
    needed = parseEther(match[1]!)
    assert.ok(needed > 0n)
    assert.equal(await clients.publicClient.getTransactionCount({ address: hsmAddress }), 0)
    assert.equal(await clients.publicClient.getCode({ address: registryAt(defaultSalt) }), undefined)
  })

  it('deploys from the HSM key, funded with exactly what it asked for, through the CREATE2 proxy; verifies; prints the settings merged with the operator’s', async () => {
    const funder = clients.walletFor(devnetAccounts.other)
    await clients.publicClient.waitForTransactionReceipt({
      hash: await funder.sendTransaction({
        to: hsmAddress,
        value: needed,
        account: funder.account!,
        chain: funder.chain,
      }),
    })

    const existing = {
      'eip155:8453': '0x00000000000000000000000000000000000000aa',
      '31337': '0x00000000000000000000000000000000000000bb',
    }
    const run = await deployProcess(['--chain', chain, '--rpc', anvil.rpcUrl], {
      ...hsmEnv,
      EXECUTOR_ADDRESSES: JSON.stringify(existing),
    })
    assert.equal(run.code, 0, run.stderr)
    assert.ok(!`${run.stdout}${run.stderr}`.includes(pin), 'the PIN is never printed')

    const registry = registryAt(defaultSalt)
    const executor = getContractAddress({
      opcode: 'CREATE2',
      from: proxy,
      salt: defaultSalt,
      bytecode: `${intentExecutorArtifact.bytecode}${registry.slice(2).toLowerCase().padStart(64, '0')}`,
    })
    const read = clients.publicClient.readContract
    const ledger = getAddress(
      await read({ address: executor, abi: intentExecutorArtifact.abi, functionName: 'ledger' }),
    )
    const validator = getAddress(
      await read({ address: executor, abi: intentExecutorArtifact.abi, functionName: 'validator' }),
    )
    const delegate = getContractAddress({
      opcode: 'CREATE2',
      from: proxy,
      salt: defaultSalt,
      bytecode: `${intentAccountArtifact.bytecode}${ledger.slice(2).toLowerCase().padStart(64, '0')}`,
    })
    assert.equal(
      getAddress(await read({ address: delegate, abi: intentAccountArtifact.abi, functionName: 'ledger' })),
      ledger,
    )
    assert.equal(
      getAddress(await read({ address: ledger, abi: intentLedgerArtifact.abi, functionName: 'executor' })),
      executor,
    )

    const bundler = getContractAddress({
      opcode: 'CREATE2',
      from: proxy,
      salt: defaultSalt,
      bytecode: intentBundlerArtifact.bytecode,
    })
    assert.notEqual(await clients.publicClient.getCode({ address: bundler }), undefined, 'IntentBundler deployed')
    settings = printedSettings(run.stdout)
    assert.deepEqual(settings, {
      EXECUTOR_ADDRESSES: JSON.stringify({ 'eip155:8453': existing['eip155:8453'], [chain]: executor }),
      VALIDATOR_ADDRESSES: JSON.stringify({ [chain]: validator }),
      REGISTRY_ADDRESSES: JSON.stringify({ [chain]: registry }),
      ACCOUNT_DELEGATE_ADDRESSES: JSON.stringify({ [chain]: delegate }),
      BUNDLER_ADDRESSES: JSON.stringify({ [chain]: bundler }),
    })
    assert.match(
      run.stdout,
      new RegExp(
        `^Deployed \\(4 transactions\\) on eip155:31337 from ${hsmAddress} \\(pkcs11\\), salt ${defaultSalt}:$`,
        'm',
      ),
    )
    assert.match(run.stdout, new RegExp(`^  IntentLedger     ${ledger}  created by IntentExecutor$`, 'm'))
    // Four transactions, all from the token's key, all to the proxy; what they cost was within the estimate.
    assert.equal(await clients.publicClient.getTransactionCount({ address: hsmAddress }), 4)
    for (const hash of [...run.stdout.matchAll(/\((0x[0-9a-f]{64})\)$/gm)].map((m) => m[1] as Hex)) {
      const tx = await clients.publicClient.getTransaction({ hash })
      assert.equal(tx.from, hsmAddress.toLowerCase())
      assert.equal(tx.to, proxy)
    }
  })

  it('finds them on a second run and sends nothing: same addresses, no transaction, no block', async () => {
    const block = await clients.publicClient.getBlockNumber()
    const run = await deployProcess(['--chain', chain, '--rpc', anvil.rpcUrl, '--json'], hsmEnv)
    assert.equal(run.code, 0, run.stderr)
    const result = JSON.parse(run.stdout)
    assert.equal(result.transactions, 0)
    assert.deepEqual(
      Object.values(result.contracts).map((c) => (c as { outcome: string }).outcome),
      ['present', 'present', 'present', 'present', 'present', 'present'],
    )
    assert.deepEqual(
      { ...result.settings, EXECUTOR_ADDRESSES: JSON.parse(result.settings.EXECUTOR_ADDRESSES)[chain] },
      {
        ...settings,
        EXECUTOR_ADDRESSES: JSON.parse(settings.EXECUTOR_ADDRESSES!)[chain],
      },
    )
    assert.equal(await clients.publicClient.getTransactionCount({ address: hsmAddress }), 4)
    assert.equal(await clients.publicClient.getBlockNumber(), block)
    // What the gateway below is given: this run's settings, without the operator's other chain.
    settings = result.settings
  })

  it('a gateway started with the printed settings validates and executes a signed intent on them (200 0x11)', async () => {
    const sender = clients.walletFor(devnetAccounts.sender)
    const account = sender.account!
    const registry = JSON.parse(settings.REGISTRY_ADDRESSES!)[chain] as Address
    const executor = JSON.parse(settings.EXECUTOR_ADDRESSES!)[chain] as Address
    const mined = async (hash: Promise<Hex>) => clients.publicClient.waitForTransactionReceipt({ hash: await hash })
    const counter = (
      await mined(
        sender.deployContract({
          abi: demoCounterArtifact.abi,
          bytecode: demoCounterArtifact.bytecode,
          account,
          chain: sender.chain,
        }),
      )
    ).contractAddress as Address
    const policy = {
      owner: account.address,
      allowedTargets: [counter],
      allowedSelectors: [toFunctionSelector('increment(uint256)')],
      maxValuePerTx: parseEther('1'),
      maxAggregateValue: parseEther('10'),
      validAfter: 0n,
      validBefore: 0n,
      allowedChains: [31337n],
    }
    await mined(
      sender.writeContract({
        address: registry,
        abi: policyRegistryArtifact.abi,
        functionName: 'createPolicy',
        args: [saltOf('deploy.test'), policy],
        account,
        chain: sender.chain,
      }),
    )
    await mined(
      sender.writeContract({
        address: executor,
        abi: intentExecutorArtifact.abi,
        functionName: 'deposit',
        value: parseEther('1'),
        account,
        chain: sender.chain,
      }),
    )
    const intent = {
      sender: account.address,
      target: counter,
      data: encodeFunctionData({ abi: demoCounterArtifact.abi, functionName: 'increment', args: [1n] }),
      value: 0n,
      nonce: 0n,
      validAfter: 0n,
      validBefore: 0n,
      policyId: derivePolicyId(account.address, saltOf('deploy.test')),
    }
    const signed = async (nonce: bigint) => ({
      ...intent,
      value: '0',
      nonce: String(nonce),
      validAfter: '0',
      validBefore: '0',
      signature: await privateKeyToAccount(devnetAccounts.sender).signTypedData(
        intentTypedData({ chainId: 31337, executor, intent: { ...intent, nonce } }),
      ),
    })
    const body = await signed(0n)

    const relayer = privateKeyToAccount(devnetAccounts.relayer).address
    const relayerBefore = await clients.publicClient.getBalance({ address: relayer })
    const { gw, baseUrl } = await startGatewayProcess({
      ...settings,
      RPC_URLS: JSON.stringify({ [chain]: anvil.rpcUrl }),
      RELAYER_PRIVATE_KEY: devnetAccounts.relayer,
      HOST: '127.0.0.1',
      PORT: '0',
      RECEIPT_POLL_MS: '100',
    })
    try {
      const validated = await post(baseUrl, '/intents/validate', body, { 'x-chain-id': chain })
      assert.equal(validated.status, 200, validated.text)
      assertCommonHeaders(validated, { status: '0x01' })
      const executed = await post(baseUrl, '/intents/execute', body, { 'x-chain-id': chain })
      assert.equal(executed.status, 200, executed.text)
      assertCommonHeaders(executed, { status: '0x11' })
      // A lone execute is a transaction of its own, to the executor.
      const tx = await clients.publicClient.getTransaction({ hash: executed.body.transactionHash })
      assert.equal(tx.to, executor.toLowerCase())
      // The printed settings name the deployed IntentBundler (BUNDLER_ADDRESSES): concurrent executes
      // simulated together go as its calls.
      const bodies = await Promise.all([1n, 2n, 3n, 4n, 5n, 6n].map(signed))
      const answers = await Promise.all(
        bodies.map((b) => post(baseUrl, '/intents/execute', b, { 'x-chain-id': chain })),
      )
      for (const a of answers) assert.equal(a.status, 200, a.text)
      const sentTo = await Promise.all(
        answers.map(async (a) => (await clients.publicClient.getTransaction({ hash: a.body.transactionHash })).to),
      )
      const bundler = (JSON.parse(settings.BUNDLER_ADDRESSES!)[chain] as string).toLowerCase() as Hex
      assert.ok(sentTo.includes(bundler), `sent to ${sentTo.join(', ')}`)
      assert.equal(
        await clients.publicClient.readContract({
          address: counter,
          abi: demoCounterArtifact.abi,
          functionName: 'count',
        }),
        7n,
      )
      assert.ok(
        (await clients.publicClient.getBalance({ address: relayer })) < relayerBefore,
        'the relayer paid the gas',
      )
    } finally {
      gw.child.kill('SIGTERM')
      await gw.exit
    }
  })

  it('deploys from a local key too (DEPLOYER_PRIVATE_KEY), with another salt at other addresses, never printing the key', async () => {
    const run = await deployProcess(['--chain', chain, '--rpc', anvil.rpcUrl, '--salt', 'local-run'], localEnv)
    assert.equal(run.code, 0, run.stderr)
    assert.ok(
      !`${run.stdout}${run.stderr}`.toLowerCase().includes(devnetAccounts.deployer.slice(2).toLowerCase()),
      'the key is never printed',
    )
    const local = privateKeyToAccount(devnetAccounts.deployer).address
    assert.match(
      run.stdout,
      new RegExp(
        `^Deployed \\(4 transactions\\) on eip155:31337 from ${local} \\(local\\), salt ${keccak256(stringToHex('local-run'))}:$`,
        'm',
      ),
    )
    const registry = JSON.parse(printedSettings(run.stdout).REGISTRY_ADDRESSES!)[chain]
    assert.equal(registry, registryAt(keccak256(stringToHex('local-run'))))
    assert.notEqual(registry, JSON.parse(settings.REGISTRY_ADDRESSES!)[chain])
  })

  it('deploys from a key in KMS (DEPLOYER_KMS_KEY_ID, through the gateway’s KMS signer against a local KMS stand-in)', async () => {
    const kms = await startKmsStandIn({ 'alias/deployer': devnetAccounts.facilitator })
    try {
      const run = await deployProcess(['--chain', chain, '--rpc', anvil.rpcUrl, '--salt', 'kms-run', '--json'], {
        DEPLOYER_KMS_KEY_ID: 'alias/deployer',
        KMS_REGION: 'us-east-1',
        KMS_ENDPOINT: kms.endpoint,
        // The SDK reads credentials from the environment, as on a host.
        AWS_ACCESS_KEY_ID: 'AKIASTANDIN',
        AWS_SECRET_ACCESS_KEY: 'stand-in-secret',
      })
      assert.equal(run.code, 0, run.stderr)
      const result = JSON.parse(run.stdout)
      assert.deepEqual(result.deployer, { address: kms.addressOf('alias/deployer'), backend: 'kms' })
      assert.equal(result.transactions, 4)
      assert.equal(kms.signs, 4, 'KMS signed the four deployments')
      assert.ok(!`${run.stdout}${run.stderr}`.includes('stand-in-secret'))
      assert.equal(JSON.parse(result.settings.REGISTRY_ADDRESSES)[chain], registryAt(keccak256(stringToHex('kms-run'))))
    } finally {
      await kms.close()
    }
  })

  it('waits for --confirmations blocks after each deployment before the next (and before answering)', async () => {
    const deployer = privateKeyToAccount(devnetAccounts.deployer).address
    const start = await clients.publicClient.getTransactionCount({ address: deployer })
    let done = false
    const running = deployHere(
      ['--chain', chain, '--rpc', anvil.rpcUrl, '--salt', 'confirmed', '--confirmations', '2'],
      localEnv,
    ).then((run) => {
      done = true
      return run
    })
    // anvil mines a block per transaction and no other: each deployment waits for a block mined here.
    for (let sent = 1; sent <= 4; sent++) {
      while (!done && (await clients.publicClient.getTransactionCount({ address: deployer })) < start + sent)
        await new Promise((r) => setTimeout(r, 50))
      await new Promise((r) => setTimeout(r, 300))
      assert.equal(
        await clients.publicClient.getTransactionCount({ address: deployer }),
        start + sent,
        `deployment ${sent + 1} waits for deployment ${sent}'s second confirmation`,
      )
      assert.equal(done, false)
      await rpc('evm_mine', [])
    }
    const run = await running
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.stderr.match(/: waiting for 2 confirmations$/gm)?.length, 4)
  })

  it('refuses code at an address that is not the build, naming the contract, and sends nothing', async () => {
    const salt = keccak256(stringToHex('tampered'))
    await rpc('anvil_setCode', [registryAt(salt), demoCounterArtifact.deployedBytecode])
    const nonce = await clients.publicClient.getTransactionCount({
      address: privateKeyToAccount(devnetAccounts.deployer).address,
    })
    const run = await deployHere(['--chain', chain, '--rpc', anvil.rpcUrl, '--salt', 'tampered'], localEnv)
    assert.equal(run.code, 1)
    assert.match(
      run.stderr,
      new RegExp(`^Refusing: PolicyRegistry at ${registryAt(salt)} differs from the build$`, 'm'),
    )
    assert.match(
      run.stderr,
      /its runtime code \(\d+ bytes\) is not this build's \(\d+ bytes, immutables masked\)\. Nothing was sent\./,
    )
    assert.equal(
      await clients.publicClient.getTransactionCount({ address: privateKeyToAccount(devnetAccounts.deployer).address }),
      nonce,
    )
  })

  it("refuses the build's code holding another deployment's immutables (a delegate bound to another ledger), before sending anything", async () => {
    // The delegate the HSM run deployed, copied to where salt "copied" puts its delegate: same code, another ledger.
    const delegate = JSON.parse(settings.ACCOUNT_DELEGATE_ADDRESSES!)[chain] as Address
    const oldLedger = getAddress(
      await clients.publicClient.readContract({
        address: delegate,
        abi: intentAccountArtifact.abi,
        functionName: 'ledger',
      }),
    )
    const salt = keccak256(stringToHex('copied'))
    const executor = getContractAddress({
      opcode: 'CREATE2',
      from: proxy,
      salt,
      bytecode: `${intentExecutorArtifact.bytecode}${registryAt(salt).slice(2).toLowerCase().padStart(64, '0')}`,
    })
    const ledger = getContractAddress({ opcode: 'CREATE', from: executor, nonce: 1n })
    const target = getContractAddress({
      opcode: 'CREATE2',
      from: proxy,
      salt,
      bytecode: `${intentAccountArtifact.bytecode}${ledger.slice(2).toLowerCase().padStart(64, '0')}`,
    })
    await rpc('anvil_setCode', [target, await clients.publicClient.getCode({ address: delegate })])

    const run = await deployHere(['--chain', chain, '--rpc', anvil.rpcUrl, '--salt', 'copied', '--json'], localEnv)
    assert.equal(run.code, 1)
    const { error } = JSON.parse(run.stdout)
    assert.equal(error.code, 'DEPLOY_CODE_DIFFERS')
    assert.equal(error.message, `Refusing: IntentAccount at ${target} differs from the build`)
    assert.match(
      error.details,
      new RegExp(
        `^its code is this build's but its immutables are not this deployment's: ledger\\(\\) is ${oldLedger}, not ${ledger}\\. Nothing was sent\\.`,
      ),
    )
    assert.equal(
      await clients.publicClient.getCode({ address: registryAt(salt) }),
      undefined,
      'the registry of that salt was not deployed either',
    )
  })

  it('refuses an RPC that serves another chain, and says when the RPC cannot be reached (its URL redacted)', async () => {
    const wrong = await deployHere(['--chain', 'eip155:8453', '--rpc', anvil.rpcUrl], localEnv)
    assert.equal(wrong.code, 1)
    assert.equal(
      wrong.stderr,
      `The RPC at ${anvil.rpcUrl}/ serves eip155:31337, not eip155:8453\nRefusing to deploy: --chain says eip155:8453. Give the RPC of eip155:8453, or --chain eip155:31337 if that is the chain you mean.\n`,
    )
    const down = await deployHere(
      ['--chain', chain, '--rpc', 'http://127.0.0.1:9/v3/0123456789abcdef0123456789abcdef'],
      localEnv,
    )
    assert.equal(down.code, 1)
    assert.match(down.stderr, /^Cannot reach the RPC at http:\/\/127\.0\.0\.1:9\/v3\/\*\*\*\neth_chainId failed: /)
    assert.ok(!down.stderr.includes('0123456789abcdef'), 'the key in the URL is not printed')
  })

  it('refuses a chain without the CREATE2 proxy, saying how to get it deployed', async () => {
    const id = await rpc('evm_snapshot', [])
    try {
      await rpc('anvil_setCode', [proxy, '0x'])
      const run = await deployHere(['--chain', chain, '--rpc', anvil.rpcUrl, '--salt', 'no-proxy'], localEnv)
      assert.equal(run.code, 1)
      assert.match(
        run.stderr,
        /^eip155:31337 has no CREATE2 deployer at 0x4e59b44847b379578588920ca78fbf26c0b4956c\nMost chains have it .* send 0\.01 ETH to its one-time signer 0x3fab184622dc19b6109349b94811493bf2a45362 /,
      )
    } finally {
      await rpc('evm_revert', [id])
    }
  })

  it('refuses bad options, naming each: two keys without --key-source, a Solana chain, a short salt', async () => {
    const run = await deployHere(
      ['--chain', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', '--rpc', 'not a url', '--salt', '0x1234'],
      { ...localEnv, DEPLOYER_KMS_KEY_ID: 'alias/deployer' },
    )
    assert.equal(run.code, 2)
    assert.deepEqual(
      run.stderr
        .split('\n')
        .filter((l) => l.startsWith('  - '))
        .map((l) => l.split(':')[0]),
      ['  - --chain', '  - --rpc', '  - --salt', '  - --key-source'],
    )
    assert.match(
      run.stderr,
      /solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1 is not an EVM chain: this command deploys the EVM contracts \(a Solana program is deployed with `solana program deploy`/,
    )
    assert.match(
      run.stderr,
      /--key-source: DEPLOYER_PRIVATE_KEY and DEPLOYER_KMS_KEY_ID are both set: say which key deploys \(--key-source local or kms\)/,
    )
  })
})
