// The CLI's help text.
export const usage = `intent-gateway: run Intent Gateway, and validate, sign and execute intents against one

Usage: intent-gateway <command> [flags]

Commands
  start                     run the gateway from this repository (the embedded devnet when nothing is configured)
  validate                  POST /intents/validate (account mode: signed with INTENT_SIGNER_PRIVATE_KEY when set)
  execute                   POST /intents/execute, signed with INTENT_SIGNER_PRIVATE_KEY when set (--wait: until settled)
  sign                      print the intent's signature by INTENT_SIGNER_PRIVATE_KEY for the chain
  hash                      print the intent's hash (X-Intent-Hash) for the chain
  status <intentHash>       GET /intents/{intentHash} (--wait: until settled)
  account <address>         GET /accounts/{address}: delegated to the chain's IntentAccount (account mode), its code and nonce
  codes [code]              the ERC-1066 to HTTP table (or one row)
  chains                    the chains the gateway serves

The intent: --intent <file.json> (or - for stdin), and/or --sender --target --data --value --nonce
  --valid-after --valid-before --policy-id --accounts <json> --signature (flags win over the file)
  --mode <executor|account>  EVM: account runs the intent from the sender's own address (EIP-7702),
                            signed under { name: IntentAccount, version: 1, chainId, verifyingContract: sender }
  --calls <json|file>       account mode: a batch, 1 to 16 [{"target","data","value"}] run in order, instead of
                            --target --data --value
  --authorization <json|file>  account mode: the sender's EIP-7702 authorization, when signed elsewhere

Flags
  --url <url>               the gateway (default $INTENT_GATEWAY_URL, else http://127.0.0.1:3000)
  --chain <id>              X-Chain-Id: 31337, eip155:31337, solana:... (default $INTENT_GATEWAY_CHAIN_ID, else the gateway's default)
  --json                    machine-readable output on stdout (errors too, as {"error": ...})
  --wait                    execute, status: follow the execution until final (events, "n of m confirmations" on stderr)
  --respond-async           execute: answered once the node holds the transaction (202 0xF3, exit 7; with --wait,
                            then followed until final), not once it is mined (Prefer: respond-async)
  --timeout <ms>            per request, and for --wait (default 60000)
  --unsigned                execute: do not sign even when a key is set
  --no-authorize            validate, execute in account mode: never sign an EIP-7702 authorization (by default
                            the sender's own key signs one when GET /accounts says the account is not delegated yet)
  --pay                     execute, validate: pay the gateway's x402 price with INTENT_PAYER_PRIVATE_KEY
  --max-usd <amount>        with --pay: most to pay per request in a known stablecoin, e.g. 0.10 (x402's default: 1)
  --allow-asset <network>/<asset>[=<max atomic units>]   with --pay: also pay in this token (repeatable)
  --chain-type <evm|solana|sui>  hash: compute offline for this runtime (solana also needs --program and --config)
  --program <id> --config <account>  hash: the Solana deployment the bytes are bound to
  --port <port>             start: the port (sets PORT)
  -h, --help
  -v, --version             print this command's version (the client package's, semver); GET /health names the gateway's

Environment (never printed)
  INTENT_GATEWAY_API_KEY       sent as Authorization: Bearer
  INTENT_SIGNER_PRIVATE_KEY    EVM: the sender's (or a delegate's) 0x-hex key that signs intents (and, in account
                               mode, the sender's authorization on first use)
  INTENT_SIGNER_SOLANA_KEY     Solana: the signer's secret key, a keypair file's JSON array or 0x hex
  INTENT_PAYER_PRIVATE_KEY     EVM key that pays x402 prices (with --pay)

Exit codes
  0 done   2 bad usage   3 refused   4 signature required or refused   5 payment required
  6 funds short (deposit or policy cap)   7 not settled yet / try later   8 gateway unreachable   1 internal error
`
