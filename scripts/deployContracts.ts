// `npm run deploy:contracts -- --chain <CAIP-2 id> --rpc <url>`: deploys the gateway's contracts to
// a real chain from a local, PKCS#11 or KMS key (src/chains/evm/deploy/runDeployCommand.ts does the work; this
// is the process around it). Exits explicitly: a token's or KMS client's handles may outlive the run.
import { runDeployCommand } from '../src/chains/evm/deploy/runDeployCommand.ts'

const code = await runDeployCommand({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
})
process.stdout.write('', () => process.exit(code))
