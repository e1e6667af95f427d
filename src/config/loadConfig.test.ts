import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { a, b, c, completeEnv, configProblems } from '../../test/support/configProblems.ts'
import { solanaRuntime } from '../chains/solana/solanaRuntime.ts'
import { loadConfig } from '../runtimes.ts'

const solanaRuntimeMessage = (value: string) => solanaRuntime.checkAddress(value)

const complete = completeEnv

const problems = configProblems

describe('loadConfig', () => {
  it('reads ACCOUNT_DELEGATE_ADDRESSES onto the chain as accountDelegate, and refuses one for a chain that is not configured or not an address', () => {
    const d = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9'
    assert.equal(
      loadConfig({ ...complete, ACCOUNT_DELEGATE_ADDRESSES: JSON.stringify({ '84532': d }) }).chains[0]
        ?.accountDelegate,
      d,
    )
    assert.equal(loadConfig(complete).chains[0]?.accountDelegate, undefined)
    const found = problems({ ...complete, ACCOUNT_DELEGATE_ADDRESSES: JSON.stringify({ '84532': 'nope', '1': d }) })
    assert.ok(
      found.some((p) => p.startsWith('ACCOUNT_DELEGATE_ADDRESSES: chain 84532:')),
      found.join('\n'),
    )
    assert.ok(
      found.includes(
        'ACCOUNT_DELEGATE_ADDRESSES: chain eip155:1 is not configured (set it in EXECUTOR_ADDRESSES, VALIDATOR_ADDRESSES and REGISTRY_ADDRESSES, or remove it)',
      ),
      found.join('\n'),
    )
  })

  it('reads BUNDLER_ADDRESSES onto an EVM chain as bundler, and refuses one for a chain that is not configured or not an address', () => {
    const d = '0x673cD70FA883394a1f3DEb3221937Ceb7C2618D7'
    assert.equal(loadConfig({ ...complete, BUNDLER_ADDRESSES: JSON.stringify({ '84532': d }) }).chains[0]?.bundler, d)
    assert.equal(loadConfig(complete).chains[0]?.bundler, undefined, 'absent: one transaction an execution')
    const found = problems({ ...complete, BUNDLER_ADDRESSES: JSON.stringify({ '84532': 'nope', '1': d }) })
    assert.ok(
      found.some((p) => p.startsWith('BUNDLER_ADDRESSES: chain 84532:')),
      found.join('\n'),
    )
    assert.ok(
      found.includes(
        'BUNDLER_ADDRESSES: chain eip155:1 is not configured (set it in EXECUTOR_ADDRESSES, VALIDATOR_ADDRESSES and REGISTRY_ADDRESSES, or remove it)',
      ),
      found.join('\n'),
    )
  })

  it('reads a complete configuration, with decimal and CAIP-2 keys naming one chain', () => {
    const config = loadConfig(complete)
    assert.equal(config.process.devnet, false)
    assert.equal(config.server.port, 8080)
    assert.equal(config.server.host, '0.0.0.0')
    assert.deepEqual(config.chains, [
      {
        chainId: 'eip155:84532',
        chainType: 'evm',
        reference: '84532',
        rpcUrls: ['https://sepolia.base.example/v1/abc'],
        executor: a,
        validator: b,
        registry: c,
      },
    ])
    assert.equal(config.server.bodyLimit, 65536)
  })

  it('reads a pool of relayer keys (RELAYER_PRIVATE_KEY, then RELAYER_PRIVATE_KEYS, each once) and names a bad one by its place, never its value', () => {
    const k1 = `0x${'11'.repeat(32)}`
    const k2 = `0x${'22'.repeat(32)}`
    const config = loadConfig({ ...complete, RELAYER_PRIVATE_KEY: k1, RELAYER_PRIVATE_KEYS: ` ${k2}, ${k1.slice(2)} ` })
    assert.deepEqual(config.keys.evm, [
      { backend: 'local', secret: k1, setting: 'RELAYER_PRIVATE_KEY' },
      { backend: 'local', secret: k2, setting: 'RELAYER_PRIVATE_KEYS' },
    ])
    const found = problems({ ...complete, RELAYER_PRIVATE_KEYS: `${k2},0x1234abcd` })
    assert.deepEqual(found, [
      'RELAYER_PRIVATE_KEYS (key 2): must be 32 bytes written as 64 hex digits (optionally 0x-prefixed)',
    ])
    const devKey = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6'
    assert.ok(
      problems({
        ...complete,
        NODE_ENV: 'production',
        API_KEYS: 'k'.repeat(16),
        RELAYER_PRIVATE_KEYS: `${k2},${devKey}`,
      }).includes(
        'RELAYER_PRIVATE_KEYS (key 2): is one of the public devnet keys and is refused when NODE_ENV=production',
      ),
    )
  })

  it('asks for the devnet only when nothing is configured outside production', () => {
    assert.equal(loadConfig({}).process.devnet, true)
    assert.equal(loadConfig({}).server.port, 3000)
    assert.deepEqual(problems({ NODE_ENV: 'production' }), [
      'PORT: required',
      'EXECUTOR_ADDRESSES: required (a JSON object of chain id -> contract address)',
      'VALIDATOR_ADDRESSES: required (a JSON object of chain id -> contract address)',
      'REGISTRY_ADDRESSES: required (a JSON object of chain id -> contract address)',
      'PUBLIC_URL: required in production while the MCP server is on (MCP_ENABLED): /mcp serves only requests naming this host (DNS rebinding); set the origin clients reach the gateway at, like https://gateway.example',
    ])
  })

  it('reads PUBLIC_URL: an origin, https in production, required there while /mcp is on or something is priced', () => {
    const { PUBLIC_URL: _, ...withoutUrl } = complete
    assert.equal(loadConfig(complete).server.publicUrl, 'https://gateway.example')
    assert.equal(
      loadConfig({ ...complete, PUBLIC_URL: 'http://127.0.0.1:8080/' }).server.publicUrl,
      'http://127.0.0.1:8080',
    )
    assert.equal(loadConfig(withoutUrl).server.publicUrl, undefined, 'outside production: optional')
    assert.equal(
      loadConfig({ ...withoutUrl, NODE_ENV: 'production', MCP_ENABLED: 'false' }).server.publicUrl,
      undefined,
      'no MCP, nothing priced: optional',
    )
    assert.deepEqual(problems({ ...complete, PUBLIC_URL: 'https://gateway.example/api?x=1' }), [
      'PUBLIC_URL: "https://gateway.example/api?x=1" is not an origin like https://gateway.example (scheme, host and port only)',
    ])
    assert.deepEqual(problems({ ...complete, NODE_ENV: 'production', PUBLIC_URL: 'http://gateway.example' }), [
      'PUBLIC_URL: must be https in production',
    ])
    assert.deepEqual(
      problems({ ...withoutUrl, NODE_ENV: 'production' }).filter((p) => p.startsWith('PUBLIC_URL')),
      [
        'PUBLIC_URL: required in production while the MCP server is on (MCP_ENABLED): /mcp serves only requests naming this host (DNS rebinding); set the origin clients reach the gateway at, like https://gateway.example',
      ],
    )
  })

  it('reports every problem at once, naming the variable', () => {
    const found = problems({
      EXECUTOR_ADDRESSES: '{not json',
      VALIDATOR_ADDRESSES: JSON.stringify({ '84532': '0x123', '0x14a34': b }),
      REGISTRY_ADDRESSES: JSON.stringify([c]),
      RPC_URLS: JSON.stringify({
        '84532': 'ftp://x',
        '1': 'http://127.0.0.1:8545',
        'eip155:1': 'http://127.0.0.1:8546',
      }),
      PORT: '70000',
      LOG_LEVEL: 'loud',
      DEFAULT_CHAIN_ID: 'mainnet',
      BODY_LIMIT: '-1',
    })
    assert.deepEqual(found, [
      'PORT: "70000" is not an integer between 0 and 65535',
      'LOG_LEVEL: "loud" is not one of fatal, error, warn, info, debug, trace, silent',
      'EXECUTOR_ADDRESSES: not valid JSON (expected an object such as {"84532": "0x..."})',
      'VALIDATOR_ADDRESSES: chain 84532: "0x123" is not an address (0x followed by 40 hex digits)',
      'VALIDATOR_ADDRESSES: "0x14a34" is not a chain id: use an EVM chain id in decimal (84532) or CAIP-2 (eip155:84532)',
      'REGISTRY_ADDRESSES: must be a JSON object of chain id -> address',
      'RPC_URLS: chain 84532: scheme ftp: is not supported (use http or https)',
      'RPC_URLS: chain eip155:1 appears twice (as a decimal id and as CAIP-2)',
      'RPC_URLS: chain eip155:1 has no contract addresses (set it in EXECUTOR_ADDRESSES, VALIDATOR_ADDRESSES and REGISTRY_ADDRESSES, or remove it)',
      'DEFAULT_CHAIN_ID: "mainnet" is not a chain id: use an EVM chain id in decimal (84532) or CAIP-2 (eip155:84532)',
      'BODY_LIMIT: "-1" is not an integer between 1024 and 16777216',
    ])
  })

  it('needs every contract for each chain; RPC URLs are optional, one or a list', () => {
    const found = problems({ ...complete, RPC_URLS: '{}', REGISTRY_ADDRESSES: JSON.stringify({ '84532': c, '1': c }) })
    assert.deepEqual(found, [
      'EXECUTOR_ADDRESSES: chain eip155:1 has no executor address (every chain needs a validator, executor and registry)',
      'VALIDATOR_ADDRESSES: chain eip155:1 has no validator address (every chain needs a validator, executor and registry)',
    ])
    assert.deepEqual(loadConfig({ ...complete, RPC_URLS: '' }).chains[0]!.rpcUrls, [])
    const two = ['http://127.0.0.1:8545', 'https://u:p@rpc.example/?key=k']
    assert.deepEqual(
      loadConfig({ ...complete, RPC_URLS: JSON.stringify({ 'eip155:84532': two }) }).chains[0]!.rpcUrls,
      two,
    )
    assert.deepEqual(
      problems({ ...complete, RPC_URLS: JSON.stringify({ '84532': ['http://ok.example', 5, 'ws://x'] }) }),
      [
        'RPC_URLS: chain 84532 [1]: must be a URL string',
        'RPC_URLS: chain 84532 [2]: scheme ws: is not supported (use http or https)',
      ],
    )
    assert.deepEqual(problems({ ...complete, RPC_URLS: JSON.stringify({ '84532': [] }) }), [
      'RPC_URLS: chain 84532: the list is empty (leave the chain out to discover its endpoints)',
    ])
  })

  it('reads the journal and shutdown settings: a file outside the devnet, in memory on it', () => {
    const config = loadConfig(complete)
    assert.deepEqual(config.storageOptions.sqlite, {
      path: join(process.cwd(), 'data', 'journal.sqlite'),
      synchronous: 'full',
    })
    assert.equal(config.execution.reconcileIntervalMs, 5000)
    assert.equal(config.server.shutdownTimeoutMs, 40_000)
    assert.equal(config.server.requestTimeoutMs, 30_000)
    assert.deepEqual(config.server.corsOrigins, [])
    assert.deepEqual(
      loadConfig({ ...complete, CORS_ORIGINS: 'https://app.example, http://localhost:5173' }).server.corsOrigins,
      ['https://app.example', 'http://localhost:5173'],
    )
    assert.deepEqual(loadConfig({ ...complete, CORS_ORIGINS: '*' }).server.corsOrigins, ['*'])
    assert.deepEqual(problems({ ...complete, CORS_ORIGINS: 'https://app.example/path,app.example,*' }), [
      'CORS_ORIGINS: "*" cannot be combined with other origins',
    ])
    assert.deepEqual(problems({ ...complete, CORS_ORIGINS: 'https://app.example/path,app.example,ftp://x.example' }), [
      'CORS_ORIGINS: "https://app.example/path" is not an origin like https://app.example (scheme, host and port only)',
      'CORS_ORIGINS: "app.example" is not an origin like https://app.example (scheme, host and port only)',
      'CORS_ORIGINS: "ftp://x.example" is not an origin like https://app.example (scheme, host and port only)',
    ])
    assert.deepEqual(loadConfig({}).storageOptions, { sqlite: { path: ':memory:', synchronous: 'full' } })
    const set = loadConfig({
      ...complete,
      JOURNAL_PATH: 'var/j.sqlite',
      JOURNAL_SYNCHRONOUS: 'NORMAL',
      RECONCILE_INTERVAL_MS: '250',
      SHUTDOWN_TIMEOUT_MS: '0',
    })
    assert.deepEqual(set.storageOptions.sqlite, { path: join(process.cwd(), 'var', 'j.sqlite'), synchronous: 'normal' })
    assert.equal(set.execution.reconcileIntervalMs, 250)
    assert.equal(set.server.shutdownTimeoutMs, 0)
    assert.deepEqual(
      problems({ ...complete, JOURNAL_SYNCHRONOUS: 'off', RECONCILE_INTERVAL_MS: '5', SHUTDOWN_TIMEOUT_MS: 'soon' }),
      [
        'JOURNAL_SYNCHRONOUS: "off" is not full or normal',
        'RECONCILE_INTERVAL_MS: "5" is not an integer between 100 and 3600000',
        'SHUTDOWN_TIMEOUT_MS: "soon" is not an integer between 0 and 600000',
      ],
    )
  })

  it('reads the connection bounds', () => {
    const config = loadConfig(complete)
    assert.equal(config.server.idleTimeoutMs, 5_000)
    assert.equal(config.server.maxConnections, 512)
    const set = loadConfig({ ...complete, IDLE_TIMEOUT_MS: '65000', MAX_CONNECTIONS: '4000' })
    assert.equal(set.server.idleTimeoutMs, 65_000)
    assert.equal(set.server.maxConnections, 4000)
    assert.deepEqual(problems({ ...complete, IDLE_TIMEOUT_MS: '0', MAX_CONNECTIONS: 'many' }), [
      'IDLE_TIMEOUT_MS: "0" is not an integer between 100 and 600000',
      'MAX_CONNECTIONS: "many" is not an integer between 1 and 1000000',
    ])
  })

  it('reads the cap per client and the trusted proxies, reporting every bad entry', () => {
    const config = loadConfig(complete)
    assert.equal(config.server.maxConnectionsPerClient, 64)
    assert.deepEqual(config.server.trustedProxies, [])
    const set = loadConfig({
      ...complete,
      MAX_CONNECTIONS_PER_CLIENT: '8',
      TRUSTED_PROXIES: ' 10.0.0.1, 10.1.0.0/16 ,2001:db8::/032,::1 ',
    })
    assert.equal(set.server.maxConnectionsPerClient, 8)
    assert.deepEqual(set.server.trustedProxies, ['10.0.0.1', '10.1.0.0/16', '2001:db8::/32', '::1'])
    assert.deepEqual(
      problems({
        ...complete,
        MAX_CONNECTIONS_PER_CLIENT: '0',
        TRUSTED_PROXIES: '10.0.0.1,proxy.example,10.0.0.0/33,10.0.0.0/8/8,::1/129,10.0.0.0/x',
      }),
      [
        'MAX_CONNECTIONS_PER_CLIENT: "0" is not an integer between 1 and 1000000',
        'TRUSTED_PROXIES: entry 2 "proxy.example" is not an IP address or CIDR range (such as 10.0.0.1 or 10.0.0.0/8)',
        'TRUSTED_PROXIES: entry 3 "10.0.0.0/33" has a prefix length that is not an integer between 0 and 32',
        'TRUSTED_PROXIES: entry 4 "10.0.0.0/8/8" is not an IP address or CIDR range (such as 10.0.0.1 or 10.0.0.0/8)',
        'TRUSTED_PROXIES: entry 5 "::1/129" has a prefix length that is not an integer between 0 and 128',
        'TRUSTED_PROXIES: entry 6 "10.0.0.0/x" has a prefix length that is not an integer between 0 and 32',
      ],
    )
  })

  it('refuses a mixed-case address with a wrong checksum', () => {
    const bad = a.replace('F', 'f')
    assert.deepEqual(problems({ ...complete, EXECUTOR_ADDRESSES: JSON.stringify({ '84532': bad }) }), [
      `EXECUTOR_ADDRESSES: chain 84532: "${bad}" has mixed case but is not a valid EIP-55 checksum`,
    ])
  })

  it('reads Solana and Sui chains with their own address forms, and refuses what they cannot be', () => {
    const program = 'Gateway1111111111111111111111111111111111111'
    const configAccount = 'So11111111111111111111111111111111111111112'
    const pkg = `0x${'ab'.repeat(32)}`
    const hub = `0x${'cd'.repeat(32)}`
    const add = (extra: Record<string, Record<string, string>>) => {
      const env: Record<string, string> = { ...complete }
      for (const [name, entries] of Object.entries(extra))
        env[name] = JSON.stringify({ ...JSON.parse(complete[name as keyof typeof complete]), ...entries })
      return env
    }
    const solanaId = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
    const config = loadConfig({
      ...add({
        EXECUTOR_ADDRESSES: { [solanaId]: program, 'sui:localnet': pkg },
        VALIDATOR_ADDRESSES: { [solanaId]: program, 'sui:localnet': pkg },
        REGISTRY_ADDRESSES: { [solanaId]: configAccount, 'sui:localnet': hub },
        RPC_URLS: { [solanaId]: 'http://127.0.0.1:8899', 'sui:localnet': 'http://127.0.0.1:9000' },
      }),
      SOLANA_SIMULATION_FEE_PAYER: configAccount,
    })
    assert.deepEqual(
      config.chains.map((c) => [c.chainId, c.chainType, c.executor, c.registry]),
      [
        ['eip155:84532', 'evm', a, c],
        [solanaId, 'solana', program, configAccount],
        ['sui:localnet', 'sui', pkg, hub],
      ],
    )
    assert.equal((config.runtimeOptions.solana as { simulationFeePayer?: string }).simulationFeePayer, configAccount)

    assert.deepEqual(
      problems({
        ...add({
          EXECUTOR_ADDRESSES: { [solanaId]: a, 'sui:mainnet': '0x2', 'sui:other': pkg, 'cosmos:hub-4': a },
          VALIDATOR_ADDRESSES: { [solanaId]: program, 'sui:mainnet': pkg, 'sui:other': pkg, 'cosmos:hub-4': a },
          REGISTRY_ADDRESSES: { [solanaId]: configAccount, 'sui:mainnet': hub, 'sui:other': hub, 'cosmos:hub-4': a },
        }),
        SUI_RELAYER_PRIVATE_KEY: 'suiprivkey1notakey',
        SOLANA_SIMULATION_FEE_PAYER: 'nope',
      }),
      [
        `EXECUTOR_ADDRESSES: chain ${solanaId}: "${a}" ${solanaRuntimeMessage(a)}`,
        'EXECUTOR_ADDRESSES: chain sui:mainnet: "0x2" must be a Sui address: 0x followed by 64 hex digits (short forms such as 0x2 are not accepted: write all 64 digits)',
        'cosmos:hub-4: the cosmos namespace is not a runtime this gateway serves (eip155, solana or sui)',
        `RPC_URLS: chain ${solanaId} needs an endpoint (only EVM chains are discovered)`,
        'RPC_URLS: chain sui:mainnet needs an endpoint (only EVM chains are discovered)',
        'sui:other: a Sui chain id is one of sui:mainnet, sui:testnet, sui:devnet, sui:localnet',
        'RPC_URLS: chain sui:other needs an endpoint (only EVM chains are discovered)',
        // Each runtime reads its own settings, in the order of src/runtimes.ts.
        `SOLANA_SIMULATION_FEE_PAYER: ${solanaRuntimeMessage('nope')}`,
        'SUI_RELAYER_PRIVATE_KEY: must be an Ed25519 key in the form `sui keytool export` prints (suiprivkey1...)',
      ],
    )
  })

  it('checks DEFAULT_CHAIN_ID against the configured chains', () => {
    assert.equal(loadConfig({ ...complete, DEFAULT_CHAIN_ID: '84532' }).defaultChainId, 'eip155:84532')
    assert.deepEqual(problems({ ...complete, DEFAULT_CHAIN_ID: '1' }), [
      'DEFAULT_CHAIN_ID: chain eip155:1 is not configured (configured: eip155:84532)',
    ])
  })

  it('checks the relayer key without ever echoing it, and refuses public devnet keys in production', () => {
    const secret = 'abcdef'.repeat(10)
    const found = problems({ ...complete, RELAYER_PRIVATE_KEY: secret })
    assert.deepEqual(found, ['RELAYER_PRIVATE_KEY: must be 32 bytes written as 64 hex digits (optionally 0x-prefixed)'])
    assert.ok(!found.join().includes(secret))

    const anvilKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
    assert.deepEqual(loadConfig({ ...complete, RELAYER_PRIVATE_KEY: anvilKey }).keys.evm?.[0], {
      backend: 'local',
      secret: anvilKey,
      setting: 'RELAYER_PRIVATE_KEY',
    })
    assert.deepEqual(problems({ ...complete, NODE_ENV: 'production', RELAYER_PRIVATE_KEY: anvilKey }), [
      'RELAYER_PRIVATE_KEY: is one of the public devnet keys and is refused when NODE_ENV=production',
    ])
    assert.deepEqual(
      loadConfig({
        ...complete,
        NODE_ENV: 'production',
        RELAYER_PRIVATE_KEY: '11'.repeat(32),
        API_KEYS: 'agent-key-0123456789abcdef',
      }).keys.evm?.map((k) => k.backend === 'local' && k.secret),
      [`0x${'11'.repeat(32)}`],
    )
  })

  it('keeps only hashes of API keys and refuses an open execute in production unless told to', () => {
    const key = 'agent-key-0123456789abcdef'
    const hashed = `sha256:${'ab'.repeat(32)}`
    const config = loadConfig({ ...complete, API_KEYS: ` ${key} , ${hashed} ` })
    assert.equal(config.auth.keyHashes.length, 2)
    assert.ok(!JSON.stringify(config).includes(key), 'the plain key is not kept')
    assert.equal(config.auth.keyHashes[1]!.toString('hex'), 'ab'.repeat(32))
    assert.equal(config.auth.requireForValidate, false)

    assert.deepEqual(problems({ ...complete, API_KEYS: 'short,sha256:zz', REQUIRE_API_KEY_FOR_VALIDATE: 'yes' }), [
      'API_KEYS: entry 1 is shorter than 16 characters',
      'API_KEYS: entry 2 starts with sha256: but is not followed by 64 hex digits',
      'REQUIRE_API_KEY_FOR_VALIDATE: "yes" is not true or false',
    ])
    assert.deepEqual(problems({ ...complete, REQUIRE_API_KEY_FOR_VALIDATE: 'true' }), [
      'REQUIRE_API_KEY_FOR_VALIDATE: is set but neither API_KEYS nor OAUTH_ISSUER is',
    ])

    const production = { ...complete, NODE_ENV: 'production', RELAYER_PRIVATE_KEY: '11'.repeat(32) }
    assert.deepEqual(problems(production), [
      "API_KEYS: required in production when RELAYER_PRIVATE_KEY is set, unless OAUTH_ISSUER is (anyone could spend the relayer's funds); set ALLOW_UNAUTHENTICATED_EXECUTE=true to run open on purpose",
    ])
    assert.equal(loadConfig({ ...production, ALLOW_UNAUTHENTICATED_EXECUTE: 'true' }).auth.keyHashes.length, 0)
    assert.equal(loadConfig({ ...production, API_KEYS: key }).auth.keyHashes.length, 1)
    assert.equal(
      loadConfig({ ...complete, NODE_ENV: 'production' }).auth.keyHashes.length,
      0,
      'no relayer: nothing to protect',
    )
  })

  it('reads OAuth (OAUTH_ISSUER): off by default; the audience is the parsed PUBLIC_URL; with it, a production relayer needs no API key and validate may require a credential', () => {
    assert.equal(loadConfig(complete).oauth, undefined)
    // PUBLIC_URL as parsed (no trailing slash): a token's aud names the origin, never the raw setting.
    const oauth = loadConfig({
      ...complete,
      PUBLIC_URL: 'https://gateway.example/',
      OAUTH_ISSUER: 'https://as.example/tenant',
    }).oauth
    assert.deepEqual(oauth, {
      issuer: 'https://as.example/tenant',
      audience: 'https://gateway.example',
      jwksUrl: undefined,
      resourceMetadataUrl: 'https://gateway.example/.well-known/oauth-protected-resource',
    })
    const production = {
      ...complete,
      NODE_ENV: 'production',
      RELAYER_PRIVATE_KEY: '11'.repeat(32),
      OAUTH_ISSUER: 'https://as.example',
    }
    const config = loadConfig({ ...production, REQUIRE_API_KEY_FOR_VALIDATE: 'true' })
    assert.deepEqual(
      [config.auth.keyHashes.length, config.auth.requireForValidate, config.oauth?.issuer],
      [0, true, 'https://as.example'],
    )
    // A wrong OAuth setting is reported as itself, not as a missing API key.
    assert.deepEqual(problems({ ...production, OAUTH_ISSUER: 'http://as.example' }), [
      'OAUTH_ISSUER: must be an https URL when NODE_ENV=production, not http:',
    ])
    assert.deepEqual(problems({ ...complete, OAUTH_AUDIENCE: 'https://gateway.example' }), [
      'OAUTH_AUDIENCE: is set but OAUTH_ISSUER is not (OAuth access tokens are accepted only from a configured issuer)',
    ])
  })

  it('reads CONFIRMATIONS; the EVM settings (MAX_FEE_PER_GAS_GWEI: src/chains/evm/evmOptions.test.ts) are read with the runtimes, first, and kept under runtimeOptions.evm', () => {
    assert.equal(loadConfig(complete).execution.confirmations, 1)
    const set = loadConfig({ ...complete, CONFIRMATIONS: '12', MAX_FEE_PER_GAS_GWEI: '2.5' })
    assert.deepEqual(
      [set.execution.confirmations, (set.runtimeOptions.evm as { maxFeePerGas: number }).maxFeePerGas],
      [12, 2_500_000_000],
    )
    assert.deepEqual(problems({ ...complete, CONFIRMATIONS: '0', MAX_FEE_PER_GAS_GWEI: '-1' }), [
      'MAX_FEE_PER_GAS_GWEI: "-1" is not an amount of gwei between 0 and 100000 (up to 9 decimals; 0 turns re-pricing off)',
      'CONFIRMATIONS: "0" is not an integer between 1 and 1000',
    ])
  })

  it('requires signed intents in production unless ALLOW_UNSIGNED_INTENTS, and caps gas per execution', () => {
    assert.equal(loadConfig(complete).execution.requireSignedIntents, false, 'outside production the chain decides')
    const production = { ...complete, NODE_ENV: 'production' }
    assert.equal(loadConfig(production).execution.requireSignedIntents, true)
    assert.equal(loadConfig({ ...production, ALLOW_UNSIGNED_INTENTS: 'true' }).execution.requireSignedIntents, false)
    assert.equal(loadConfig(complete).execution.maxGasPerExecution, 5_000_000)
    assert.equal(loadConfig({ ...complete, MAX_GAS_PER_EXECUTION: '300000' }).execution.maxGasPerExecution, 300_000)
    assert.deepEqual(problems({ ...complete, MAX_GAS_PER_EXECUTION: '100', ALLOW_UNSIGNED_INTENTS: 'maybe' }), [
      'ALLOW_UNSIGNED_INTENTS: "maybe" is not true or false',
      'MAX_GAS_PER_EXECUTION: "100" is not an integer between 21000 and 1000000000',
    ])
  })

  it("lets the heap grow 50% past the last full collection unless HEAP_GROWING_PERCENT says otherwise (0: V8's own)", () => {
    assert.equal(loadConfig(complete).process.heapGrowingPercent, 50)
    assert.equal(loadConfig({ ...complete, HEAP_GROWING_PERCENT: '0' }).process.heapGrowingPercent, 0)
    assert.equal(problems({ ...complete, HEAP_GROWING_PERCENT: '-5' }).length, 1)
    assert.match(problems({ ...complete, HEAP_GROWING_PERCENT: 'lots' })[0]!, /^HEAP_GROWING_PERCENT/)
  })

  it('gives freed native memory back every 10 s unless NATIVE_HEAP_TRIM_MS says otherwise (0: never)', () => {
    assert.equal(loadConfig(complete).process.nativeHeapTrimMs, 10_000)
    assert.equal(loadConfig({ ...complete, NATIVE_HEAP_TRIM_MS: '0' }).process.nativeHeapTrimMs, 0)
    assert.equal(loadConfig({ ...complete, NATIVE_HEAP_TRIM_MS: '60000' }).process.nativeHeapTrimMs, 60_000)
    assert.match(problems({ ...complete, NATIVE_HEAP_TRIM_MS: '-1' })[0]!, /^NATIVE_HEAP_TRIM_MS/)
    assert.match(problems({ ...complete, NATIVE_HEAP_TRIM_MS: 'often' })[0]!, /^NATIVE_HEAP_TRIM_MS/)
  })
})
