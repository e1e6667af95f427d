// Start-up's look at the chain: the endpoint serves this cluster (genesis hash), the program is
// deployed, and the config account is the program's deployment config for this cluster.
import { getBase58Encoder } from '@solana/kit'
import type { PreflightResult } from '../../../ports/chainAdapter.ts'
import { classifySolanaRpcError } from '../classifySolanaRpcError.ts'
import { accountSizes, accountTags } from '../intentGatewayProgram.ts'
import type { SolanaContext } from '../solanaContext.ts'
import { callSolanaRpc } from './callSolanaRpc.ts'

export async function checkDeployment(ctx: SolanaContext): Promise<PreflightResult> {
  const { chain } = ctx
  try {
    const [genesisHash, programAccount, configAccount] = await Promise.all([
      callSolanaRpc(ctx, 'getGenesisHash', 'genesis hash request', (rpc, abortSignal) =>
        rpc.getGenesisHash().send({ abortSignal }),
      ),
      callSolanaRpc(ctx, 'getAccountInfo', 'program account lookup', (rpc, abortSignal) =>
        rpc.getAccountInfo(chain.programId, { encoding: 'base64' }).send({ abortSignal }),
      ),
      callSolanaRpc(ctx, 'getAccountInfo', 'config account lookup', (rpc, abortSignal) =>
        rpc.getAccountInfo(chain.config, { encoding: 'base64' }).send({ abortSignal }),
      ),
    ])
    const missing: string[] = []
    if (!genesisHash.startsWith(chain.reference))
      missing.push(`chain id ${chain.chainId} (the endpoint's genesis hash is ${genesisHash})`)
    if (!programAccount.value?.executable) missing.push(`validator ${chain.programId} (no executable program)`)
    const configData = configAccount.value ? Buffer.from(configAccount.value.data[0], 'base64') : undefined
    const genesisBytes = Buffer.from(getBase58Encoder().encode(genesisHash))
    if (
      !configAccount.value ||
      configAccount.value.owner !== chain.programId ||
      configData?.length !== accountSizes.config ||
      configData[0] !== accountTags.config
    ) {
      missing.push(`registry ${chain.config} (no deployment config account of the program)`)
    } else if (!configData.subarray(8, 40).equals(genesisBytes)) {
      missing.push(`registry ${chain.config} (its deployment config is bound to another cluster)`)
    }
    return missing.length === 0 ? { ok: true } : { ok: false, missing }
  } catch (err) {
    return { ok: false, unreachable: classifySolanaRpcError(err, chain.chainId, 'account lookup').shortMessage }
  }
}
